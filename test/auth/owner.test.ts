import { afterAll, describe, expect, it } from 'bun:test';
import { createAccount } from '../../src/auth/owner';
import { ServiceError } from '../../src/errors';
import { startTestServer } from '../helpers/server';

describe('the first-run account', () => {
  const serverP = startTestServer();
  afterAll(async () => (await serverP).close());

  it('is made once when two setups race: the other is refused with conflict', async () => {
    const { services } = await serverP;
    const results = await Promise.allSettled([
      createAccount(services.store, services.clock, 'first@example.org', 'a long password', { firstOnly: true }),
      createAccount(services.store, services.clock, 'second@example.org', 'a long password', { firstOnly: true }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(ServiceError);
    expect((refused.reason as ServiceError).code).toBe('conflict');
    expect(await services.store.accounts.count()).toBe(1);
  });
});
