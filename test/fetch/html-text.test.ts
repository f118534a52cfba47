// HTML to reading text on its own: what is kept, what is dropped, and the title.
import { describe, expect, it } from 'bun:test';
import { htmlToText } from '../../src/fetch/html-text';

describe('htmlToText', () => {
  it('keeps paragraphs, headings and list items as blocks', () => {
    const { text } = htmlToText(
      '<body><h2>Soil</h2><p>Loam is best.</p><p>Add compost<br>every spring.</p><ol><li>Dig</li><li>Rake</li></ol></body>',
    );
    expect(text).toBe('Soil\n\nLoam is best.\n\nAdd compost\nevery spring.\n\n 1. Dig\n 2. Rake');
  });

  it('drops scripts, styles, navigation, hidden parts, forms and media', () => {
    const html = `<html><head><style>.x{}</style><script>a()</script></head><body>
      <nav>menu</nav><div role="navigation">crumbs</div><div hidden>secret</div><noscript>enable js</noscript>
      <p>Kept.</p><svg><title>icon</title></svg><img alt="photo" src="p.png"><iframe src="x"></iframe>
      <form><input value="v"><select><option>choice</option></select><button>Go</button></form><template>tpl</template></body></html>`;
    expect(htmlToText(html).text).toBe('Kept.');
  });

  it('keeps link text without the address and decodes entities', () => {
    expect(
      htmlToText('<p>See <a href="https://x.example/">the guide</a> &mdash; &quot;ok&quot; &amp; done.</p>').text,
    ).toBe('See the guide — "ok" & done.');
  });

  it("takes the page's own title, whitespace collapsed, and not an svg title", () => {
    expect(
      htmlToText('<head><title>\n  A   title </title></head><body><svg><title>no</title></svg><p>x</p></body>').title,
    ).toBe('A title');
    expect(htmlToText('<p>untitled</p>').title).toBeNull();
    expect(htmlToText('<title>   </title><p>blank title</p>').title).toBeNull();
  });

  it('reads a fragment without <html> or <body>, leaving the title out of the text', () => {
    expect(htmlToText('<title>T</title><p>bare</p>')).toEqual({ text: 'bare', title: 'T' });
  });

  it('survives absurd nesting instead of overflowing the stack', () => {
    const deep = `${'<div>'.repeat(20_000)}deep${'</div>'.repeat(20_000)}<p>after</p>`;
    expect(() => htmlToText(deep)).not.toThrow();
  });
});
