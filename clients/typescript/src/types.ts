/**
 * The shapes Engram sends and receives, as docs/api.md gives them. Wire field names keep the
 * spec's snake_case (`custom_id`, `container_name`, `trace_id`). No runtime code lives here.
 */

// ---------------------------------------------------------------------------------------------
// Records

/** A Memory: one of the person's own topics. Its `id` is the `container` parameter elsewhere. */
export interface Container {
  id: string;
  name: string;
  description: string;
  created_at: string;
  /** Whether learning may promote facts drawn from its documents to the profile; when false they stay in the container. */
  learns_into_profile: boolean;
}

/** One passage found by search, most relevant first. */
export interface SearchHit {
  /** The container's id. */
  container: string;
  /** The container's name, echoed so a hit can be shown without another call. */
  container_name: string;
  content: string;
  score: number;
  /** Set when the passage comes from a document. */
  document_id: string | null;
  /** Set when the passage is a learned fact. */
  memory_id: string | null;
  custom_id: string | null;
  title: string | null;
  /** Where the passage sits in its document; null for a fact. */
  position: number | null;
  /** Present when the hit is a fact learned from a document: where it was learned from, to cite. */
  source?: FactSource;
}

/** The document and passage a learned fact was extracted from. */
export interface FactSource {
  document_id: string;
  /** The document's `custom_id`, when its writer gave one. */
  custom_id: string | null;
  /** The passage's position in that document, as a hit's `position` counts them. */
  passage: number;
}

/** A container a search looked in. `error` is present when the search failed there. */
export interface SearchedContainer {
  id: string;
  name: string;
  /** A failed search in this container: not the same thing as an empty memory. */
  error?: { code: string; message: string };
}

/** A learned fact (a memory). `static` facts live in the profile, not in a container. */
export interface Fact {
  id: string;
  content: string;
  title: string | null;
  static: boolean;
  container: string | null;
  created_at: string;
  updated_at: string;
}

/** Where a document is in learning. */
export type DocumentStatus = 'queued' | 'learned' | 'failed';

/** A document as list and get return it. `content` is present on get only. */
export interface Document {
  id: string;
  container: string;
  title: string | null;
  content?: string | null;
  url: string | null;
  custom_id: string | null;
  metadata: Record<string, unknown> | null;
  status: DocumentStatus;
  /** True once the container has learned it; only then is it searchable. */
  learned: boolean;
  /** Why learning failed, when `status` is `failed`. */
  error: string | null;
  created_at: string;
  updated_at: string;
}

/** One of the person's standing rules for how their memory is used. */
export interface Rule {
  id: string;
  text: string;
  scope: 'account' | 'credential';
  created_at: string;
}

/**
 * The answer to a destructive call made without `confirm: true`: HTTP 200, not an error.
 * Relay `how` to the person; nothing was deleted.
 */
export interface ConfirmationRequest {
  status: 'confirmation_required';
  /** The operation's name, e.g. `delete_document`. */
  verb: string;
  /** A sentence to relay to the person. */
  how: string;
}

/** The body of every error answer on REST. */
export interface ErrorEnvelope {
  code: string;
  message: string;
  details: Record<string, unknown>;
  retryable: boolean;
  trace_id: string;
}

// ---------------------------------------------------------------------------------------------
// Responses

export interface ContainerList {
  containers: Container[];
}

export interface SearchResponse {
  results: SearchHit[];
  /** Every container searched; check `error` on each before reading no results as "nothing". */
  containers: SearchedContainer[];
}

export interface Profile {
  /** Standing facts: who the person is, lasting preferences. */
  static: Fact[];
  /** Recently changed facts. */
  dynamic: Fact[];
  /** Passages relevant to `q`; present only when `q` was given. */
  results?: SearchHit[];
}

export interface DocumentList {
  /** Newest first. */
  documents: Document[];
  /** Pass as `cursor` to read the next page; null on the last page. */
  next_cursor: string | null;
}

export interface RulesResponse {
  rules: Rule[];
}

/**
 * The exposed agent's reply. Neither the contract nor docs/api.md shows its fields yet, so it is
 * typed loosely: read the fields you expect and check them.
 */
export type AskResponse = Record<string, unknown>;

/** `queued` (HTTP 202): the document landed and learning started. `exists`: the `custom_id` was seen before; nothing started. */
export interface AddDocumentResponse {
  id: string;
  status: 'queued' | 'exists';
  container: string;
  custom_id: string | null;
}

/** What a confirmed delete took with the document: its passages (with their vectors) and the facts learned from it. */
export interface ForgottenCounts {
  documents: number;
  passages: number;
  facts: number;
}

export interface DocumentDeleted {
  status: 'deleted';
  id: string;
  forgotten: ForgottenCounts;
  /** Learned facts the person confirmed or edited: kept, without their source. Forget them one by one if asked to. */
  kept: { facts: number };
}

export interface MemoryForgotten {
  status: 'forgotten';
  id: string;
}

/** Check `status` before reading `id`: without `confirm: true` the answer is a confirmation request. */
export type DeleteDocumentResult = DocumentDeleted | ConfirmationRequest;

/** Check `status` before reading `id`: without `confirm: true` the answer is a confirmation request. */
export type ForgetMemoryResult = MemoryForgotten | ConfirmationRequest;

// ---------------------------------------------------------------------------------------------
// Parameters

export interface AddDocumentParams {
  /** Required when more than one container is in the key's reach. */
  container?: string | null;
  /** Give exactly one of `content` and `url`. */
  content?: string | null;
  /** A public address the server fetches. Give exactly one of `content` and `url`. */
  url?: string | null;
  /** Your own id. Adding the same `custom_id` again is a no-op answered `status: "exists"`. */
  custom_id?: string;
  /** Your own bookkeeping; search does not filter on it. */
  metadata?: Record<string, unknown> | null;
  title?: string;
}

export interface SearchParams {
  /** Natural language; must not be empty. */
  q: string;
  /** A container id, `"*"` for every container in reach, or omitted when only one is in reach. */
  container?: string | null;
  /** 1 to 100; the server's default is 10. */
  limit?: number | null;
}

export interface ProfileParams {
  /** A topic: when given, the profile also carries relevant passages in `results`. */
  q?: string | null;
}

export interface AskParams {
  message: string;
  model?: string | null;
}

export interface ListDocumentsParams {
  container?: string | null;
  /** 1 to 200; the server's default is 50. */
  limit?: number | null;
  /** The `next_cursor` of the page before. */
  cursor?: string | null;
}

export interface DeleteDocumentParams {
  /** Without `true` the server only answers with a confirmation request. */
  confirm?: boolean;
}

export interface AddMemoryParams {
  /** The fact as the person said it. */
  content: string;
  /** Required when more than one container is in reach (and `static` is not true). */
  container?: string | null;
  /** True saves a standing fact about the person to the profile instead of a container. */
  static?: boolean;
  title?: string;
}

export interface ForgetMemoryParams {
  container?: string | null;
  /** Without `true` the server only answers with a confirmation request. */
  confirm?: boolean;
}

/** The last argument of every write method (`add`, `memories.add`, `documents.delete`, `memories.forget`). */
export interface WriteOptions {
  /**
   * Sent as `Idempotency-Key` on every attempt of this call: the server answers a retry of a
   * write it already carried out with its first answer, so nothing is written twice. 1 to 255
   * printable ASCII characters; by default a new random UUID per call. Pass your own to make a
   * call safe to repeat across restarts of your program; the server remembers a key for 24 hours.
   */
  idempotencyKey?: string;
}
