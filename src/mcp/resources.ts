/**
 * The MCP resources, the same under every protocol revision: what a client may attach as context.
 * Each is answered by an operation under the caller's own rules (level, reach, the profile tick, a
 * consent token's narrower tools), so `resources/list` names only what the caller can read, and
 * reading anything else is refused as a resource that is not there. Nothing here knows about eras.
 */
import type {
  ReadResourceResult,
  Resource,
  ResourceTemplateType as ResourceTemplate,
} from '@modelcontextprotocol/server';
import { ServiceError } from '../errors';
import { getContainer, getDocument, getProfile, listContainers } from '../operations';
import { type Context, invoke, isOffered, type Operation } from '../operations/operation';
import { failureOf } from './rpc-errors';

const PROFILE_URI = 'engram://profile';
const CONTAINER_URI = 'engram://containers/';
const DOCUMENT_URI = 'engram://documents/';
const JSON_TYPE = 'application/json';

/**
 * The operation as the door calls it for a resource or a prompt: the door has already counted the
 * request in the caller's limiter (http.ts), so the operation must not count it again.
 */
export const counted = <O extends Operation>(op: O): O => ({ ...op, unlimited: true });

/** The resources a caller may read: the profile when it holds get_profile, each container in reach. */
export async function listResources(ctx: Context): Promise<Resource[]> {
  const resources: Resource[] = [];
  if (isOffered(getProfile, ctx.caller)) {
    resources.push({
      uri: PROFILE_URI,
      name: 'profile',
      title: 'Profile',
      description: 'Standing facts about the person, and the facts that changed most recently (get_profile).',
      mimeType: JSON_TYPE,
    });
  }
  if (isOffered(getContainer, ctx.caller)) {
    const { containers } = await invoke(counted(listContainers), ctx, {});
    for (const c of containers) {
      resources.push({
        uri: `${CONTAINER_URI}${c.id}`,
        name: c.name,
        title: c.name,
        description: `${c.description ? `${c.description}. ` : ''}Its newest documents and latest facts.`,
        mimeType: JSON_TYPE,
      });
    }
  }
  return resources;
}

/** The document template, for a caller that may read documents. */
export function listResourceTemplates(ctx: Context): ResourceTemplate[] {
  if (!isOffered(getDocument, ctx.caller)) return [];
  return [
    {
      uriTemplate: `${DOCUMENT_URI}{document_id}`,
      name: 'document',
      title: 'Document',
      description:
        'One document in reach by its id (a container resource and list_documents name them): its text, and whether it has been learned.',
      mimeType: JSON_TYPE,
    },
  ];
}

/**
 * Reads a resource as its operation answers it, as JSON. A URI that names nothing, a resource the
 * caller is not offered, a container outside reach and a document it cannot see are each refused
 * with -32602 and the envelope's fields in `data` (with the uri), as a resource that does not exist.
 */
export async function readResource(ctx: Context, uri: string): Promise<ReadResourceResult> {
  const target = resolve(uri);
  try {
    if (!target) throw new ServiceError('not_found', `No resource ${uri}.`, { uri });
    if (!isOffered(target.op, ctx.caller))
      throw new ServiceError('unauthorized', `The resource ${uri} may not be read with this credential.`, { uri });
    const answer = await invoke(counted(target.op), ctx, target.input);
    return { contents: [{ uri, mimeType: JSON_TYPE, text: JSON.stringify(answer) }] };
  } catch (err) {
    throw failureOf(ctx, err, { uri });
  }
}

/** The operation and its input that a URI names, or null. */
function resolve(uri: string): { op: Operation; input: Record<string, unknown> } | null {
  if (uri === PROFILE_URI) return { op: getProfile, input: {} };
  const id = (prefix: string) => {
    if (!uri.startsWith(prefix)) return '';
    try {
      return decodeURIComponent(uri.slice(prefix.length));
    } catch {
      return ''; // a malformed escape names nothing
    }
  };
  const container = id(CONTAINER_URI);
  if (container) return { op: getContainer, input: { container_id: container } };
  const document = id(DOCUMENT_URI);
  if (document) return { op: getDocument, input: { document_id: document } };
  return null;
}
