// Bun imports SQL and CSS files as text (`with { type: 'text' }`); this tells TypeScript so.
declare module '*.sql' {
  const text: string;
  export default text;
}

declare module '*.css' {
  const text: string;
  export default text;
}
