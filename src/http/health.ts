/**
 * `GET /healthz`: whether the server answers and its database with it (503 when not), to anyone;
 * and how far learning has got, only to a credential of this server (a developer key, a consent
 * token or the owner's session, as a bearer or the pages' cookie). The learning counters are
 * server-wide and move when the owner adds or forgets, which is nobody else's business on the
 * network.
 */
import type { Context } from 'hono';
import { AuthError, authenticate } from '../auth/credentials';
import { progressOf } from '../operations/learning-progress';
import type { Services } from '../operations/operation';
import { resourceOf, type Site } from '../site';
import { ownerSession } from './session-cookie';
import { bearerToken } from './middleware/bearer';

export function health(services: Services, site: Site) {
  return async (c: Context) => {
    // A server whose database does not answer is not well: a load balancer sends requests elsewhere.
    const databaseAnswers = await services.store.ping().then(
      () => true,
      () => false,
    );
    if (!databaseAnswers) return c.json({ status: 'unavailable', database: 'unavailable' }, 503);
    return c.json(
      (await knownCaller(c, services, site))
        ? { status: 'ok', database: 'ok', learning: await progressOf(services) }
        : { status: 'ok', database: 'ok' },
    );
  };
}

/** A bad or missing credential is no error here: a health check answers 200 either way, with less. */
async function knownCaller(c: Context, services: Services, site: Site): Promise<boolean> {
  const bearer = bearerToken(c.req.header('Authorization'));
  if (!bearer) return (await ownerSession(c, services)) !== null;
  try {
    return (
      (await authenticate(services.store, services.clock, bearer, { audience: resourceOf(site) })).kind !== 'share'
    );
  } catch (err) {
    if (err instanceof AuthError) return false;
    throw err;
  }
}
