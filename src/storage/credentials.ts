/** Credentials: developer keys and the consent tokens apps receive, with the containers each reaches. */
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

export type CredentialPatch = Partial<Pick<Credential, 'name' | 'level' | 'profile' | 'allContainers' | 'revokedAt'>>;

export interface CredentialRepository {
  insertCredential(credential: Credential): void;
  /** Looks a credential up by id alone: authentication does not know the account yet. */
  getCredentialById(id: string): Credential | null;
  getCredential(accountId: string, id: string): Credential | null;
  /** The account's credentials of one kind (developer keys unless told), newest first. */
  listCredentials(accountId: string, kind?: CredentialKind): Credential[];
  updateCredential(accountId: string, id: string, patch: CredentialPatch): void;
  setCredentialContainers(accountId: string, id: string, containerIds: string[]): void;
  touchCredential(id: string, at: number): void;
  /** Revokes every unrevoked consent token the app holds on the account; returns how many. */
  revokeConsentTokens(accountId: string, clientId: string, at: number): number;
}
