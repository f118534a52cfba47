/** Drizzle's view of the tables that `migrations/` creates. The SQL files are the source of truth. */
import { blob, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export const accounts = sqliteTable('accounts', {
  id: text('id').primaryKey(),
  email: text('email').notNull(),
  passwordHash: text('password_hash').notNull(),
  createdAt: integer('created_at').notNull(),
});

export const sessions = sqliteTable('sessions', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull(),
  secretHash: text('secret_hash').notNull(),
  createdAt: integer('created_at').notNull(),
  expiresAt: integer('expires_at').notNull(),
});

export const containers = sqliteTable('containers', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull(),
  name: text('name').notNull(),
  description: text('description').notNull(),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
  /** The name as names are compared (src/names.ts); unique per account (migration 0018). */
  nameKey: text('name_key').notNull(),
  learnsIntoProfile: integer('learns_into_profile', { mode: 'boolean' }).notNull(),
});

export const documents = sqliteTable('documents', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull(),
  containerId: text('container_id').notNull(),
  title: text('title'),
  content: text('content'),
  url: text('url'),
  customId: text('custom_id'),
  metadata: text('metadata', { mode: 'json' }).$type<Record<string, unknown> | null>(),
  status: text('status', { enum: ['queued', 'learned', 'failed'] }).notNull(),
  error: text('error'),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
  learnedAt: integer('learned_at'),
});

export const memories = sqliteTable('memories', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull(),
  containerId: text('container_id'),
  content: text('content').notNull(),
  title: text('title'),
  static: integer('static', { mode: 'boolean' }).notNull(),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
  sourceDocumentId: text('source_document_id'),
  sourcePosition: integer('source_position'),
  reviewedAt: integer('reviewed_at'),
  writtenBy: text('written_by'),
});

export const passages = sqliteTable('passages', {
  id: integer('id').primaryKey(),
  accountId: text('account_id').notNull(),
  containerId: text('container_id').notNull(),
  documentId: text('document_id'),
  memoryId: text('memory_id'),
  position: integer('position').notNull(),
  title: text('title'),
  content: text('content').notNull(),
  context: text('context'),
});

export const passageVectors = sqliteTable(
  'passage_vectors',
  {
    passageId: integer('passage_id').notNull(),
    tier: text('tier', { enum: ['fast', 'strong'] }).notNull(),
    unit: integer('unit').notNull(),
    embedding: blob('embedding', { mode: 'buffer' }).$type<Uint8Array>().notNull(),
  },
  (v) => [primaryKey({ columns: [v.passageId, v.tier, v.unit] })],
);

export const credentials = sqliteTable('credentials', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull(),
  kind: text('kind', { enum: ['developer_key', 'consent_token'] }).notNull(),
  name: text('name').notNull(),
  secretHash: text('secret_hash').notNull(),
  hint: text('hint').notNull(),
  level: text('level', { enum: ['read', 'suggest', 'manage'] }).notNull(),
  allContainers: integer('all_containers', { mode: 'boolean' }).notNull(),
  profile: integer('profile', { mode: 'boolean' }).notNull(),
  expiresInDays: integer('expires_in_days'),
  expiresAt: integer('expires_at'),
  revokedAt: integer('revoked_at'),
  replaces: text('replaces'),
  createdAt: integer('created_at').notNull(),
  lastUsedAt: integer('last_used_at'),
  clientId: text('client_id'),
  audience: text('audience'),
});

export const credentialContainers = sqliteTable(
  'credential_containers',
  {
    credentialId: text('credential_id').notNull(),
    containerId: text('container_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.credentialId, t.containerId] })],
);

export const rules = sqliteTable('rules', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull(),
  credentialId: text('credential_id'),
  text: text('text').notNull(),
  createdAt: integer('created_at').notNull(),
});

export const usage = sqliteTable('usage', {
  id: integer('id').primaryKey(),
  accountId: text('account_id').notNull(),
  credentialId: text('credential_id').notNull(),
  tool: text('tool').notNull(),
  outcome: text('outcome', { enum: ['ok', 'refused', 'error'] }).notNull(),
  status: integer('status').notNull(),
  at: integer('at').notNull(),
});

export const jobs = sqliteTable('jobs', {
  id: integer('id').primaryKey(),
  accountId: text('account_id'),
  kind: text('kind', { enum: ['learn_document', 'embed_memory', 'reembed', 'extract_facts'] }).notNull(),
  documentId: text('document_id'),
  memoryId: text('memory_id'),
  state: text('state', { enum: ['queued', 'running', 'done', 'failed'] }).notNull(),
  attempts: integer('attempts').notNull(),
  runAfter: integer('run_after').notNull(),
  error: text('error'),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
  rebuild: integer('rebuild', { mode: 'boolean' }).notNull().default(false),
  /** Until when a running job's claim holds (migration 0021). */
  leaseUntil: integer('lease_until'),
  /** Queued by an import: claimed after what was added by hand (migration 0023). */
  bulk: integer('bulk', { mode: 'boolean' }).notNull().default(false),
});

export const settings = sqliteTable('settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
});

export const oauthClients = sqliteTable('oauth_clients', {
  clientId: text('client_id').primaryKey(),
  kind: text('kind', { enum: ['registered', 'metadata_document'] }).notNull(),
  name: text('name').notNull(),
  redirectUris: text('redirect_uris', { mode: 'json' }).$type<string[]>().notNull(),
  metadata: text('metadata', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  createdAt: integer('created_at').notNull(),
  lastUsedAt: integer('last_used_at'),
  expiresAt: integer('expires_at'),
  fetchedAt: integer('fetched_at'),
  freshUntil: integer('fresh_until'),
});

export const oauthCodes = sqliteTable('oauth_codes', {
  id: text('id').primaryKey(),
  secretHash: text('secret_hash').notNull(),
  accountId: text('account_id').notNull(),
  clientId: text('client_id').notNull(),
  redirectUri: text('redirect_uri').notNull(),
  codeChallenge: text('code_challenge').notNull(),
  resource: text('resource').notNull(),
  scope: text('scope').notNull(),
  containerIds: text('container_ids', { mode: 'json' }).$type<string[]>().notNull(),
  profile: integer('profile', { mode: 'boolean' }).notNull(),
  createdAt: integer('created_at').notNull(),
  expiresAt: integer('expires_at').notNull(),
  usedAt: integer('used_at'),
  tokenId: text('token_id'),
});

export const shares = sqliteTable('exposures', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull(),
  kind: text('kind', { enum: ['agent_share', 'workflow'] }).notNull(),
  name: text('name').notNull(),
  instruction: text('instruction'),
  secretHash: text('secret_hash').notNull(),
  hint: text('hint').notNull(),
  createdAt: integer('created_at').notNull(),
  revokedAt: integer('revoked_at'),
  lastUsedAt: integer('last_used_at'),
  expiresAt: integer('expires_at'),
});

export const shareContainers = sqliteTable(
  'exposure_containers',
  {
    shareId: text('exposure_id').notNull(),
    containerId: text('container_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.shareId, t.containerId] })],
);

export const memoryHistory = sqliteTable('memory_history', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  memoryId: text('memory_id').notNull(),
  content: text('content').notNull(),
  replacedAt: integer('replaced_at').notNull(),
});

export const idempotencyKeys = sqliteTable(
  'idempotency_keys',
  {
    accountId: text('account_id').notNull(),
    credentialId: text('credential_id').notNull(),
    key: text('key').notNull(),
    digest: text('digest').notNull(),
    state: text('state', { enum: ['pending', 'done', 'interrupted'] }).notNull(),
    response: text('response'),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.credentialId, t.key] })],
);

export const importOrigins = sqliteTable(
  'import_origins',
  {
    accountId: text('account_id').notNull(),
    source: text('source').notNull(),
    kind: text('kind', { enum: ['container', 'document', 'fact', 'rule'] }).notNull(),
    exportedId: text('exported_id').notNull(),
    containerId: text('container_id'),
    documentId: text('document_id'),
    memoryId: text('memory_id'),
    ruleId: text('rule_id'),
    importedAt: integer('imported_at').notNull(),
    file: text('file'),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.source, t.kind, t.exportedId] })],
);

export const accessLog = sqliteTable('access_log', {
  id: integer('id').primaryKey(),
  accountId: text('account_id').notNull(),
  credentialId: text('credential_id').notNull(),
  credentialKind: text('credential_kind', { enum: ['key', 'consent', 'share'] }).notNull(),
  clientId: text('client_id'),
  operation: text('operation').notNull(),
  at: integer('at').notNull(),
  items: text('items', { mode: 'json' }).notNull().$type<unknown[]>(),
});
