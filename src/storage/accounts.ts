/** Accounts (owners) and their sign-in sessions. */

export interface Account {
  id: string;
  email: string;
  passwordHash: string;
  createdAt: number;
}

export interface Session {
  id: string;
  accountId: string;
  secretHash: string;
  createdAt: number;
  expiresAt: number;
}

export interface AccountRepository {
  countAccounts(): number;
  listAccounts(): Account[];
  getAccount(id: string): Account | null;
  /** Throws `UniqueViolation` when an account holds the email already. */
  insertAccount(account: Account): void;
  getAccountByEmail(email: string): Account | null;
  insertSession(session: Session): void;
  getSession(id: string): Session | null;
  deleteSession(id: string): void;
}
