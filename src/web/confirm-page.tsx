/** @jsxImportSource hono/jsx */
/** A confirmation page before a removal: it works without script, and says what will be lost. */
import { Layout } from './layout';

export interface ConfirmPageProps {
  title: string;
  message: string;
  action: string;
  button: string;
  cancel: string;
  csrf: string;
  email: string;
  current?: string;
  hidden?: Record<string, string>;
}

export function ConfirmPage({ title, message, action, button, cancel, csrf, email, current, hidden }: ConfirmPageProps) {
  return (
    <Layout title={title} signedInAs={email} csrf={csrf} current={current}>
      <div class="card">
        <h1>{title}</h1>
        <p>{message}</p>
        <form method="post" action={action}>
          <input type="hidden" name="csrf" value={csrf} />
          {Object.entries(hidden ?? {}).map(([name, value]) => (
            <input type="hidden" name={name} value={value} />
          ))}
          <div class="actions">
            <button type="submit" class="danger">{button}</button>
            <a href={cancel}>Cancel</a>
          </div>
        </form>
      </div>
    </Layout>
  );
}
