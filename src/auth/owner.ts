/** The owner's account and signed-in sessions: made by the CLI or setup, used by scripts and pages. */
import type { Clock } from '../clock';
import { DAY_MS } from '../clock';
import { ServiceError } from '../errors';
import { newId } from '../ids';
import type { Account, Repositories, Transaction } from '../storage/store';
import { mintSecret, SESSION_PREFIX } from './credentials';

const SESSION_TTL_MS = 30 * DAY_MS;
const MIN_PASSWORD = 8;

/**
 * Makes an account; its password is hashed with argon2id. With `firstOnly` (the setup page) it is
 * refused with 409 once any account exists, checked in the same transaction as the insert, so
 * two setups racing cannot both make an owner.
 */
export async function createAccount(
  store: Transaction,
  clock: Clock,
  email: string,
  password: string,
  options: { firstOnly?: boolean } = {},
): Promise<Account> {
  const normalized = email.trim();
  if (!/^[^@\s]+@[^@\s]+$/.test(normalized))
    throw new ServiceError('validation', 'That is not an email address.', { fields: ['email'] });
  if (password.length < MIN_PASSWORD) {
    throw new ServiceError('validation', `The password must have at least ${MIN_PASSWORD} characters.`, {
      fields: ['password'],
    });
  }
  if (await store.accounts.getByEmail(normalized))
    throw new ServiceError('conflict', `An account for ${normalized} already exists.`, { fields: ['email'] });
  const account = {
    id: newId('acc'),
    email: normalized,
    passwordHash: await Bun.password.hash(password, 'argon2id'),
    createdAt: clock.now(),
  };
  await store.transaction(async (tx) => {
    if (options.firstOnly && (await tx.accounts.count()) > 0)
      throw new ServiceError('conflict', 'This server has an owner already.');
    await tx.accounts.insert(account);
  });
  return account;
}

/**
 * The accounts a command at this machine may act for: the one of `email` (compared without regard
 * to case), or, with none, all.
 */
export async function accountsFor(store: Repositories, email: string | undefined): Promise<Account[]> {
  if (email === undefined) return store.accounts.list();
  const account = await store.accounts.getByEmail(email);
  return account ? [account] : [];
}

/** Whether the server has an account yet: until then the owner's pages offer only the first-run setup. */
export async function hasOwner(store: Repositories): Promise<boolean> {
  return (await store.accounts.count()) > 0;
}

/** Starts a session for an account: the bearer token `egs_<id>_<secret>`, shown once. */
export async function startSession(
  store: Repositories,
  clock: Clock,
  accountId: string,
): Promise<{ token: string; expiresAt: number }> {
  const now = clock.now();
  const secret = mintSecret(SESSION_PREFIX, 16);
  await store.sessions.insert({
    id: secret.id,
    accountId,
    secretHash: secret.hash,
    createdAt: now,
    expiresAt: now + SESSION_TTL_MS,
  });
  return { token: secret.token, expiresAt: now + SESSION_TTL_MS };
}

/** Ends a session: its token is refused from then on. */
export async function endSession(store: Repositories, sessionId: string): Promise<void> {
  await store.sessions.delete(sessionId);
}

/** Checks email and password; the same refusal for an unknown email and a wrong password. */
export async function signIn(
  store: Repositories,
  clock: Clock,
  email: string,
  password: string,
): Promise<{ token: string; expiresAt: number }> {
  const account = await store.accounts.getByEmail(email.trim());
  // Verify against a throwaway hash when the account is unknown, so timing does not tell.
  const ok = await Bun.password.verify(password, account?.passwordHash ?? (await unknownAccountHash()));
  if (!account || !ok) throw new ServiceError('unauthorized', 'The email or password is wrong.');
  return startSession(store, clock, account.id);
}

let throwaway: Promise<string> | null = null;
const unknownAccountHash = () => (throwaway ??= Bun.password.hash(crypto.randomUUID(), 'argon2id'));
