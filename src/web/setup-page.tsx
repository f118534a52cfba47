/** @jsxImportSource hono/jsx */
/** First-run setup: shown only while the server has no account, it makes the owner's account. */
import { Layout, Messages } from './layout';

export interface SetupPageProps {
  csrf: string;
  email?: string;
  error?: string | null;
}

export function SetupPage({ csrf, email, error }: SetupPageProps) {
  return (
    <Layout title="Set up">
      <div class="card">
        <h1>Set up your memory</h1>
        <p class="muted">
          This Engram server has no owner yet. Make your account: you will sign in with it to manage your memory and
          keys.
        </p>
        <Messages error={error} />
        <form method="post" action="/setup">
          <input type="hidden" name="csrf" value={csrf} />
          <label class="field">
            <span>Email</span>
            <input type="email" name="email" autocomplete="username" required value={email ?? ''} />
          </label>
          <label class="field">
            <span>Password</span>
            <input type="password" name="password" autocomplete="new-password" minlength={8} required />
          </label>
          <label class="field">
            <span>Password again</span>
            <input type="password" name="password_again" autocomplete="new-password" minlength={8} required />
          </label>
          <div class="actions">
            <button type="submit" class="primary">
              Create account
            </button>
          </div>
        </form>
      </div>
    </Layout>
  );
}
