/** @jsxImportSource hono/jsx */
/** The sign-in page: email and password, then on to `next` (a path of this server). */
import { Layout, Messages } from './layout';

export interface SignInPageProps {
  next: string;
  csrf: string;
  email?: string;
  error?: string | null;
}

export function SignInPage({ next, csrf, email, error }: SignInPageProps) {
  return (
    <Layout title="Sign in">
      <div class="card">
        <h1>Sign in to your memory</h1>
        <p class="muted">Sign in as the owner of this Engram server to continue.</p>
        <Messages error={error} />
        <form method="post" action="/sign-in">
          <input type="hidden" name="csrf" value={csrf} />
          <input type="hidden" name="next" value={next} />
          <label class="field">
            <span>Email</span>
            <input type="email" name="email" autocomplete="username" required value={email ?? ''} />
          </label>
          <label class="field">
            <span>Password</span>
            <input type="password" name="password" autocomplete="current-password" required />
          </label>
          <div class="actions">
            <button type="submit" class="primary">
              Sign in
            </button>
          </div>
        </form>
      </div>
    </Layout>
  );
}
