// html-to-text ships no types; this declares the part of its API that html-text.ts uses.
declare module 'html-to-text' {
  export interface SelectorDefinition {
    selector: string;
    format?: string;
    options?: Record<string, unknown>;
  }
  export interface HtmlToTextOptions {
    wordwrap?: number | false | null;
    selectors?: SelectorDefinition[];
    baseElements?: { selectors?: string[]; returnDomByDefault?: boolean; orderBy?: 'selectors' | 'occurrence' };
    limits?: { maxDepth?: number; maxInputLength?: number; maxBaseElements?: number; ellipsis?: string };
    decodeEntities?: boolean;
  }
  export function convert(html: string, options?: HtmlToTextOptions): string;
  export function compile(options?: HtmlToTextOptions): (html: string) => string;
}
