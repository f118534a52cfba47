// Bun imports SQL and HTML files as text (`with { type: 'text' }`); this tells TypeScript so.
declare module '*.sql' {
  const text: string;
  export default text;
}
