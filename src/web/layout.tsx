/** @jsxImportSource hono/jsx */
/**
 * The frame of every owner page (a header with the owner's navigation, the one stylesheet, the one
 * small script, a main column) and the headers every page is sent with: a strict
 * Content-Security-Policy (scripts only from this server's /web/, never inline), no framing, no
 * caching, and no referrer leaving the server.
 */
import type { Context } from 'hono';
import { raw } from 'hono/html';
import type { Child } from 'hono/jsx';
import stylesheet from './style.css' with { type: 'text' };

export const STYLESHEET_PATH = '/web/style.css';
/** Where browsers look for a site's icon unprompted: served there (an SVG), and named in every page. */
export const ICON_PATH = '/favicon.ico';
export const SCRIPT_PATH = '/web/engram.js';
export { stylesheet };

/** The owner's pages, in the order of the navigation. */
const NAV: [string, string][] = [
  ['/containers', 'Memory'],
  ['/profile', 'Profile'],
  ['/search', 'Search'],
  ['/keys', 'Keys'],
  ['/shares', 'Shares'],
  ['/rules', 'Rules'],
  ['/connected-apps', 'Connected apps'],
  ['/import', 'Import'],
];

export interface LayoutProps {
  title: string;
  /** The signed-in owner's email, shown with a Sign out button. */
  signedInAs?: string | null;
  /** The CSRF token of the sign-out form (needed when signedInAs is given). */
  csrf?: string;
  /** The navigation entry to mark as the current page. */
  current?: string;
  /**
   * Without the script, reload the page after this many seconds (a page that shows work going on; the
   * script updates it in place).
   */
  refreshSeconds?: number;
  children?: Child;
}

/**
 * What the last post did (a notice, read out when it appears) and why a form was refused (an error,
 * read out at once), as every page shows them above its content.
 */
export function Messages({ notice, error }: { notice?: string | null; error?: string | null }) {
  return (
    <>
      {notice ? (
        <p class="notice" role="status">
          {notice}
        </p>
      ) : null}
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
    </>
  );
}

/**
 * A secret just made, shown once with its Copy button: the card above a keys or shares form.
 * `inputId` names the field the Copy button reads; `children` follow it (what it is for, its page).
 */
export function MintedSecret(p: {
  title: Child;
  hint: string;
  value: string;
  inputId: string;
  label: string;
  children?: Child;
}) {
  return (
    <section class="card" id="minted" aria-labelledby="minted-title">
      <h1 id="minted-title">{p.title}</h1>
      <p class="notice" role="status">
        <strong>Copy it now: you will not see it again.</strong> Afterwards only its hint ({p.hint}) is shown.
      </p>
      <div class="secret">
        <input type="text" id={p.inputId} readonly value={p.value} aria-label={p.label} />
        <button type="button" data-copy={p.inputId} hidden>
          Copy
        </button>
      </div>
      {p.children}
    </section>
  );
}

export function Layout({ title, signedInAs, csrf, current, refreshSeconds, children }: LayoutProps) {
  return (
    <>
      {raw('<!DOCTYPE html>')}
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <meta name="referrer" content="same-origin" />
          {refreshSeconds ? (
            <noscript>
              <meta http-equiv="refresh" content={String(refreshSeconds)} />
            </noscript>
          ) : null}
          <title>{`${title} · Engram`}</title>
          <link rel="stylesheet" href={STYLESHEET_PATH} />
          <link rel="icon" href={ICON_PATH} type="image/svg+xml" />
          <script src={SCRIPT_PATH} defer></script>
        </head>
        <body>
          <header class="top">
            <span class="brand">Engram</span>
            {signedInAs ? (
              <form method="post" action="/sign-out">
                <span class="muted">{signedInAs} </span>
                <input type="hidden" name="csrf" value={csrf ?? ''} />
                <button type="submit">Sign out</button>
              </form>
            ) : null}
          </header>
          {signedInAs ? (
            <nav class="owner" aria-label="Owner pages">
              {NAV.map(([href, label]) => (
                <a href={href} aria-current={current === href ? 'page' : undefined}>
                  {label}
                </a>
              ))}
            </nav>
          ) : null}
          <main>{children}</main>
        </body>
      </html>
    </>
  );
}

/**
 * Sets the headers of an HTML page. `formTargets` are the places a form of the page may lead to
 * besides this server: CSP form-action also governs the redirect a form post answers with, so the
 * consent page names the app's redirect URI (its origin, or its private-use scheme) here.
 */
export function pageHeaders(c: Context, formTargets: string[] = []): void {
  const formAction = ["'self'", ...formTargets].join(' ');
  c.header(
    'Content-Security-Policy',
    `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
  );
  c.header('X-Frame-Options', 'DENY');
  c.header('X-Content-Type-Options', 'nosniff');
  // same-origin, not no-referrer: with no-referrer a browser sends `Origin: null` on our own form posts.
  c.header('Referrer-Policy', 'same-origin');
  c.header('Cache-Control', 'no-store');
}
