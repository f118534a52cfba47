/** The authorization server's records: the apps it knows and the codes it issued. */

/** An app known to the authorization server, registered (RFC 7591) or described by its metadata document. */
export interface OAuthClient {
  clientId: string;
  kind: 'registered' | 'metadata_document';
  name: string;
  redirectUris: string[];
  /** What was registered and answered, or the fetched metadata document. */
  metadata: Record<string, unknown>;
  createdAt: number;
  lastUsedAt: number | null;
  /** A never-approved registration is forgotten after this; null once an owner approved the app. */
  expiresAt: number | null;
  /** Metadata documents: when fetched, and until when used without fetching again. */
  fetchedAt: number | null;
  freshUntil: number | null;
}

/** An authorization code: what the owner approved, waiting for the app to exchange it. */
export interface AuthorizationCode {
  id: string;
  secretHash: string;
  accountId: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  resource: string;
  scope: string;
  containerIds: string[];
  profile: boolean;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
  tokenId: string | null;
}

export interface OAuthRepository {
  insertClient(client: OAuthClient): Promise<void>;
  /** Inserts, or replaces what is stored of the app while keeping its creation and use times. */
  upsertClient(client: OAuthClient): Promise<void>;
  getClient(clientId: string): Promise<OAuthClient | null>;
  /** Records that an owner approved the app: it no longer expires unused. */
  markClientUsed(clientId: string, at: number): Promise<void>;
  /** Forgets registrations never approved before their expiry; returns how many. */
  deleteExpiredClients(now: number): Promise<number>;

  insertCode(code: AuthorizationCode): Promise<void>;
  getCode(id: string): Promise<AuthorizationCode | null>;
  /** Marks the code used, in one guarded write; false when it already was (a replay). */
  useCode(id: string, at: number): Promise<boolean>;
  /** Records the consent token a code was exchanged for. */
  setCodeToken(id: string, tokenId: string): Promise<void>;
  /** Deletes codes that expired before `before`; returns how many. */
  deleteExpiredCodes(before: number): Promise<number>;
}
