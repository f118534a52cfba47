/** Credentials: developer keys and the consent tokens apps receive, with the containers each reaches. */
import type { Container } from './containers';
import type { ShareKind } from './shares';

export type Level = 'read' | 'suggest' | 'manage';

export type CredentialKind = 'developer_key' | 'consent_token';

export interface Credential {
  id: string;
  accountId: string;
  /**
   * A developer key, or a consent token an app received when the owner approved it (always level
   * read). A Caller made from a share carries its kind here (rows of `exposures`, never stored
   * as credentials), so reach works for it unchanged.
   */
  kind: CredentialKind | ShareKind;
  name: string;
  secretHash: string;
  hint: string;
  level: Level;
  allContainers: boolean;
  profile: boolean;
  expiresInDays: number | null;
  expiresAt: number | null;
  revokedAt: number | null;
  replaces: string | null;
  createdAt: number;
  lastUsedAt: number | null;
  /** The ticked containers; meaningful when `allContainers` is false. */
  containerIds: string[];
  /** Consent tokens only: the app (OAuth client_id) that holds it. */
  clientId?: string | null;
  /** Consent tokens only: the resource (RFC 8707) it was issued for; any other refuses it. */
  audience?: string | null;
}

/** A credential's kind as stored: shares are rows of their own table, so only keys and consent tokens are credentials. */
export function storedKind(kind: Credential['kind']): CredentialKind {
  if (kind !== 'developer_key' && kind !== 'consent_token') throw new Error(`A ${kind} is not stored as a credential.`);
  return kind;
}

/** What authenticating a call with a credential reads: the credential, and its account's containers (its reach is among them). */
export interface CredentialForCall {
  credential: Credential;
  /** The account's containers, oldest first, as `ContainerRepository.list` gives them. */
  accountContainers: Container[];
}

export type CredentialPatch = Partial<Pick<Credential, 'name' | 'level' | 'profile' | 'allContainers' | 'revokedAt'>>;

export interface CredentialRepository {
  /** Inserts the credential with its ticked containers, together. */
  insert(credential: Credential): Promise<void>;
  /** Looks a credential up by id alone: authentication does not know the account yet. */
  getById(id: string): Promise<Credential | null>;
  /**
   * A credential by id with its account's containers, read together: all that a call's
   * authentication and its reach need, in one round trip on a store in another process.
   */
  getForCall(id: string): Promise<CredentialForCall | null>;
  get(accountId: string, id: string): Promise<Credential | null>;
  /** The account's credentials of one kind (developer keys unless told), newest first. */
  list(accountId: string, kind?: CredentialKind): Promise<Credential[]>;
  update(accountId: string, id: string, patch: CredentialPatch): Promise<void>;
  /** Replaces the ticked containers, together; nothing when the account holds no such credential. */
  setContainers(accountId: string, id: string, containerIds: string[]): Promise<void>;
  /** Records when the credential was last used. */
  touch(id: string, at: number): Promise<void>;
  /** Revokes every unrevoked consent token the app holds on the account; returns how many. */
  revokeConsentTokens(accountId: string, clientId: string, at: number): Promise<number>;
}
