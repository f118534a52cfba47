/** Signing the owner in and out over REST, for scripts: POST and DELETE /v1/session. */
import { Hono } from 'hono';
import { z } from 'zod';
import { refuseOwnerOnly } from '../auth/access';
import { endSession, signIn } from '../auth/owner';
import { iso } from '../clock';
import { parseInput, type Services } from '../operations/operation';
import type { Site } from '../site';
import type { AppEnv } from './app-env';
import { requireBearer } from './middleware/bearer';
import type { PasswordThrottle } from './middleware/password-throttle';
import { jsonBody } from './rest';

export const SignIn = z.object({ email: z.string().min(1).max(320), password: z.string().min(1).max(1024) });
export const SessionToken = z.object({ token: z.string(), expires_at: z.string() }).meta({ id: 'SessionToken' });
export const SignedOut = z.object({ status: z.literal('signed_out') }).meta({ id: 'SignedOut' });

export function sessionRoutes(services: Services, site: Site, passwords: PasswordThrottle): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post('/v1/session', async (c) => {
    const { email, password } = parseInput(SignIn, await jsonBody(c));
    passwords.take(c);
    const session = await signIn(services.store, services.clock, email, password);
    return c.json({ token: session.token, expires_at: iso(session.expiresAt) }, 201);
  });
  app.delete('/v1/session', requireBearer(services, site), async (c) => {
    const caller = c.get('caller');
    // A developer key has no session to end: answering "signed_out" would claim what did not happen.
    if (caller.kind !== 'owner' || caller.sessionId === null) throw refuseOwnerOnly('sign_out', caller);
    await endSession(services.store, caller.sessionId);
    return c.json({ status: 'signed_out' as const });
  });
  return app;
}
