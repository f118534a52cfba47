/**
 * The access log: what each credential (a developer key, an app's consent token, a share) read and
 * wrote, one entry a call, by id only. What goes in an entry is decided by the operations
 * (`Operation.accessed`); this is where it is kept, listed and pruned.
 */

/** returned: the call's answer held it; written: the call made or changed it; removed: the call deleted it. */
export type AccessAction = 'returned' | 'written' | 'removed';

/** A fact served from the profile is `profile`; any other fact is `fact`. */
export type AccessKind = 'container' | 'document' | 'fact' | 'profile';

export interface AccessItem {
  action: AccessAction;
  kind: AccessKind;
  id: string;
  /** The container it was returned from or written to, when it has one. */
  container?: string | null;
  /** A document's passage: its position. */
  position?: number;
}

export type AccessCredentialKind = 'key' | 'consent' | 'share';

export interface AccessEntry {
  accountId: string;
  credentialId: string;
  credentialKind: AccessCredentialKind;
  /** Consent tokens: the app holding it. */
  clientId: string | null;
  operation: string;
  at: number;
  items: AccessItem[];
}

export interface StoredAccessEntry extends AccessEntry {
  id: number;
}

/** Whose timeline: one credential, or every consent token an app has held. */
export type AccessSubject = { credentialId: string } | { clientId: string };

export interface AccessLogRepository {
  insert(entries: AccessEntry[]): Promise<void>;
  /** The subject's entries, newest first, those with an id below `beforeId` when given. */
  list(accountId: string, subject: AccessSubject, limit: number, beforeId: number | null): Promise<StoredAccessEntry[]>;
  /** Deletes up to `limit` entries older than `before` (ms); returns how many. */
  prune(before: number, limit: number): Promise<number>;
}
