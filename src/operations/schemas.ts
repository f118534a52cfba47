/**
 * The wire shapes, once: request pieces and response objects as zod schemas. Validation, MCP tool
 * schemas and the OpenAPI document all come from these. Field names keep the contract's spelling (docs/protocol.md).
 */
import { z } from 'zod';
import { LIMITS } from '../limits';
import { hiddenCharacter } from '../names';
import { FORMAT_NAMES } from '../importers/format-labels';

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/** Size as JSON; nesting too deep to write out at all counts as too big. */
function jsonBytes(value: unknown): number {
  try {
    return bytes(JSON.stringify(value));
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

export const metadata = z.record(z.string(), z.unknown()).refine((m) => jsonBytes(m) <= LIMITS.metadataBytes, {
  message: `must be at most ${LIMITS.metadataBytes} bytes as JSON`,
});

export const title = z.string().max(LIMITS.titleChars);

/**
 * A name the owner chooses and then reads on their pages (containers, keys, shares): trimmed,
 * 1 to 200 characters, refused with 422 `validation` naming the field when it holds a character
 * that does not show or shows as a blank other than the space (src/names.ts), naming that
 * character. One rule, so every door refuses the same names.
 */
export const displayName = z
  .string()
  .trim()
  .min(1)
  .max(LIMITS.nameChars)
  .superRefine((s, ctx) => {
    const hidden = hiddenCharacter(s);
    if (hidden)
      ctx.addIssue({
        code: 'custom',
        message: `must not contain control or invisible formatting characters, or blanks other than the ordinary space (found ${hidden})`,
      });
  });

export const containerParam = z
  .string()
  .max(100)
  .nullish()
  .describe(
    'Container id. May be omitted only when exactly one container is in reach; "*" searches every container in reach.',
  );

export const confirmParam = z
  .boolean()
  .optional()
  .describe('true to carry out the removal; otherwise a confirmation request is returned.');

export const level = z.enum(['read', 'suggest', 'manage']);

/** The contract's key expiry (docs/protocol.md, "Credentials"), also that of shares and workflows: whole days, 1 to 3650; omitted for never. */
export const expiresInDays = z.number().int().min(1).max(3650).nullish().describe('1 to 3650; omit for never.');

const timestamp = z.string().describe('ISO 8601, UTC');

// Responses

export const Container = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    created_at: timestamp,
    learns_into_profile: z
      .boolean()
      .describe(
        'Whether learning may promote facts drawn from its documents to the profile (standing facts). Off: they stay in the container.',
      ),
  })
  .meta({ id: 'Container' });

export const SearchHit = z
  .object({
    container: z.string(),
    container_name: z.string(),
    content: z.string(),
    score: z.number(),
    document_id: z.string().nullable(),
    memory_id: z.string().nullable(),
    custom_id: z.string().nullable(),
    title: z.string().nullable(),
    position: z.number().int(),
    source: z
      .object({
        document_id: z.string(),
        custom_id: z.string().nullable().describe("The document's custom_id as its writer gave it, if any."),
        passage: z
          .number()
          .int()
          .describe("The passage's position in that document, as `position` counts a document's passages."),
      })
      .optional()
      .describe(
        'Present when the hit is a fact learned from a document: the document and passage it was extracted from, to cite.',
      ),
  })
  .meta({ id: 'SearchHit' });

const ErrorInfo = z.object({ code: z.string(), message: z.string() });

const SearchedContainer = z
  .object({ id: z.string(), name: z.string(), error: ErrorInfo.optional() })
  .meta({ id: 'SearchedContainer' });

export const SearchResponse = z
  .object({ results: z.array(SearchHit), containers: z.array(SearchedContainer) })
  .meta({ id: 'SearchResponse' });

export const Fact = z
  .object({
    id: z.string(),
    content: z.string(),
    title: z.string().nullable(),
    static: z.boolean(),
    container: z.string().nullable(),
    created_at: timestamp,
    updated_at: timestamp,
    source: z
      .object({ document_id: z.string(), position: z.number().int() })
      .optional()
      .describe('A learned fact: the document and passage it was extracted from.'),
    reviewed_at: timestamp
      .optional()
      .describe(
        'When the owner confirmed or edited the fact; such a fact is kept when its source document is deleted.',
      ),
  })
  .meta({ id: 'Fact' });

export const Profile = z
  .object({ static: z.array(Fact), dynamic: z.array(Fact), results: z.array(SearchHit).optional() })
  .meta({ id: 'Profile' });

/** A credential as the owner knows it: a key by its name, an app by the name it registered. */
const CredentialRef = z.object({ id: z.string(), kind: z.enum(['key', 'app']), name: z.string() });

export const FactDetail = z
  .object({
    fact: Fact,
    written_by: CredentialRef.extend({ state: z.enum(['active', 'expired', 'revoked']) })
      .nullable()
      .describe(
        'The key that saved the fact with add_memory; null when the owner saved it, or it was learned or imported.',
      ),
    learned_from: z
      .object({
        document_id: z.string(),
        title: z.string().nullable(),
        position: z.number().int(),
        passage: z.string().nullable(),
      })
      .nullable()
      .describe(
        'A learned fact: its document and the passage it was extracted from; null otherwise, or once the document is deleted.',
      ),
    source_deleted: z
      .boolean()
      .describe(
        'A learned fact whose document was deleted since; it was kept because the owner confirmed or edited it.',
      ),
    imported: z
      .object({
        file: z
          .string()
          .nullable()
          .describe('The name of the imported file; null for imports from before it was recorded.'),
        format: z.enum(FORMAT_NAMES),
        at: timestamp,
      })
      .nullable()
      .describe('An imported fact: the import that brought it; null otherwise.'),
    history: z
      .array(z.object({ content: z.string(), replaced_at: timestamp }))
      .describe('Earlier wordings, oldest first.'),
    served: z.object({
      container: z.object({ id: z.string(), name: z.string() }).nullable(),
      profile: z
        .enum(['static', 'dynamic'])
        .nullable()
        .describe(
          "static: a standing fact; dynamic: among the profile's recently changed facts (over every container); null: not in the profile.",
        ),
      readers: z
        .array(CredentialRef)
        .describe(
          'The active keys and connected apps that can read it: its container in reach, or the profile tick for a standing fact.',
        ),
    }),
  })
  .meta({ id: 'FactDetail' });

const DocumentStatus = z.enum(['queued', 'learned', 'failed']);

export const Document = z
  .object({
    id: z.string(),
    container: z.string(),
    title: z.string().nullable(),
    content: z.string().nullable().optional().describe('Present on get-document only.'),
    url: z.string().nullable(),
    custom_id: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    status: DocumentStatus,
    learned: z.boolean(),
    error: z.string().nullable().describe('Why learning failed, when status is failed.'),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Document' });

export const DocumentList = z
  .object({ documents: z.array(Document), next_cursor: z.string().nullable() })
  .meta({ id: 'DocumentList' });

export const AddDocumentResponse = z
  .object({
    id: z.string(),
    status: z.enum(['queued', 'exists']),
    container: z.string(),
    custom_id: z.string().nullable(),
  })
  .meta({ id: 'AddDocumentResponse' });

export const Rule = z
  .object({
    id: z.string(),
    text: z.string(),
    scope: z.enum(['account', 'credential']),
    credential_id: z.string().nullable(),
    created_at: timestamp,
  })
  .meta({ id: 'Rule' });

export const RuleList = z.object({ rules: z.array(Rule) }).meta({ id: 'RuleList' });

export const ConfirmationRequest = z
  .object({
    status: z.literal('confirmation_required'),
    verb: z.string(),
    how: z.string(),
  })
  .meta({ id: 'ConfirmationRequest' });

const removed = (status: 'deleted' | 'forgotten') => z.object({ status: z.literal(status), id: z.string() });

/** What a confirmed delete removed with the document or container, and the reviewed facts it kept. */
export const Forgotten = z.object({
  forgotten: z.object({
    documents: z.number().int(),
    passages: z.number().int().describe("The documents' passages, with their vectors and keyword index entries."),
    facts: z.number().int().describe('Facts learned from the documents (and, for a container, the facts in it).'),
  }),
  kept: z.object({
    facts: z.number().int().describe('Learned facts the owner confirmed or edited: kept, their source cleared.'),
  }),
});

/** A confirmed delete of a document or a container: what went with it, and what was kept. */
export const Deleted = removed('deleted').extend(Forgotten.shape);

export const ContainerList = z.object({ containers: z.array(Container) }).meta({ id: 'ContainerList' });

export const ContainerOverview = z
  .object({ container: Container, documents: z.array(Document), facts: z.array(Fact) })
  .meta({ id: 'ContainerOverview' });
export const DeleteDocumentResult = z.union([Deleted, ConfirmationRequest]).meta({ id: 'DeleteDocumentResult' });
export const ForgetMemoryResult = z
  .union([removed('forgotten'), ConfirmationRequest])
  .meta({ id: 'ForgetMemoryResult' });
export const DeleteContainerResult = z.union([Deleted, ConfirmationRequest]).meta({ id: 'DeleteContainerResult' });
export const RuleDeleted = removed('deleted').meta({ id: 'RuleDeleted' });

export const Key = z
  .object({
    id: z.string(),
    name: z.string(),
    level,
    containers: z.array(z.string()),
    all_views: z.boolean(),
    profile: z.boolean(),
    expires_in_days: z.number().int().nullable(),
    expires_at: timestamp.nullable(),
    created_at: timestamp,
    revoked_at: timestamp.nullable(),
    replaces: z.string().nullable(),
    hint: z.string(),
    last_used_at: timestamp.nullable(),
    state: z.enum(['active', 'expired', 'revoked']),
  })
  .meta({ id: 'Key' });

export const MintedKey = Key.extend({ key: z.string().describe('The key itself; shown this once.') }).meta({
  id: 'MintedKey',
});

export const KeyList = z
  .object({ active: z.array(Key), expired: z.array(Key), revoked: z.array(Key) })
  .meta({ id: 'KeyList' });

export const Usage = z
  .object({
    key_id: z.string(),
    per_day: z.array(z.object({ day: z.string(), calls: z.number().int(), refused: z.number().int() })),
    refused: z.number().int(),
    per_tool: z.array(z.object({ tool: z.string(), calls: z.number().int(), refused: z.number().int() })),
    recent: z.array(
      z.object({
        at: timestamp,
        tool: z.string(),
        outcome: z.enum(['ok', 'refused', 'error']),
        status: z.number().int(),
      }),
    ),
  })
  .meta({ id: 'Usage' });

export const ErrorEnvelope = z
  .object({
    code: z.string(),
    message: z.string(),
    details: z.record(z.string(), z.unknown()),
    retryable: z.boolean(),
    trace_id: z.string(),
  })
  .meta({ id: 'ErrorEnvelope' });

const Citation = z
  .object({
    n: z.number().int().describe('The passage number the answer cites.'),
    container: z.string(),
    container_name: z.string(),
    document_id: z.string().nullable(),
    memory_id: z.string().nullable(),
    title: z.string().nullable(),
    content: z.string(),
  })
  .meta({ id: 'Citation' });

export const AskAnswer = z
  .object({
    answer: z.string(),
    answered: z.boolean().describe('false when the memory holds no answer.'),
    citations: z.array(Citation),
  })
  .meta({ id: 'AskAnswer' });

export const WorkflowResult = AskAnswer.extend({ workflow: z.string() }).meta({ id: 'WorkflowResult' });

export const Share = z
  .object({
    id: z.string(),
    kind: z.enum(['agent_share', 'workflow']),
    name: z.string(),
    instruction: z.string().nullable(),
    containers: z.array(z.string()),
    hint: z.string(),
    created_at: timestamp,
    expires_at: timestamp.nullable(),
    revoked_at: timestamp.nullable(),
    state: z.enum(['active', 'expired', 'revoked']),
  })
  .meta({ id: 'Share' });

export const MintedShare = Share.extend({ token: z.string().describe('The token itself; shown this once.') }).meta({
  id: 'MintedShare',
});

export const ShareList = z
  .object({ active: z.array(Share), expired: z.array(Share), revoked: z.array(Share) })
  .meta({ id: 'ShareList' });
