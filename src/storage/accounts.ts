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
  count(): Promise<number>;
  list(): Promise<Account[]>;
  get(id: string): Promise<Account | null>;
  /** Throws `UniqueViolation` when an account holds the email already. */
  insert(account: Account): Promise<void>;
  /** The account of an email, compared without regard to case. */
  getByEmail(email: string): Promise<Account | null>;
}

export interface SessionRepository {
  insert(session: Session): Promise<void>;
  get(id: string): Promise<Session | null>;
  delete(id: string): Promise<void>;
}
