/** @jsxImportSource hono/jsx */
/** A page saying why a request from an app cannot go on, when there is nowhere safe to send the answer. */
import { Layout } from './layout';

export function ErrorPage({ title, message }: { title: string; message: string }) {
  return (
    <Layout title={title}>
      <div class="card">
        <h1>{title}</h1>
        <p class="error" role="alert">
          {message}
        </p>
        <p class="muted">
          Go back to the app and try connecting again. If this keeps happening, the app may not support this server.
        </p>
      </div>
    </Layout>
  );
}
