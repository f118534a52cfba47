/**
 * What a caller may do: its tools by level, its reach over containers, and the profile tick.
 * Every check here runs on the server from the credential; nothing is taken from the client.
 */
import { ServiceError } from '../errors';
import type { Container, Level, Repositories } from '../storage/store';
import type { Caller } from './caller';

/** The access an operation needs. `owner` is the owner's signed-in session only. */
export type Access = Level | 'owner';

const RANK: Record<Level, number> = { read: 1, suggest: 2, manage: 3 };

/** Whether the caller holds an operation needing `access`; each level includes the one before. */
export function holds(caller: Caller, access: Access): boolean {
  if (caller.kind === 'owner') return true;
  if (access === 'owner') return false;
  return RANK[caller.grant.level] >= RANK[access];
}

/**
 * The tools an app holds with a consent token, whatever else its level would allow: the contract's
 * "consent-minted client" row (docs/protocol.md, "Tools, levels and doors"). get_profile is offered only with the profile tick (`Operation.profile`).
 */
const CONSENT_TOOLS: ReadonlySet<string> = new Set(['list_containers', 'search_memories', 'get_profile']);

const isConsentToken = (caller: Caller | undefined) => caller?.kind === 'consent';

/** The one tool each kind of share holds; no other credential holds either (docs/protocol.md, "Tools, levels and doors"). */
const SHARE_TOOLS: Readonly<Record<'agent_share' | 'workflow', string>> = {
  agent_share: 'ask_agent',
  workflow: 'workflow_invoke',
};

const SHARE_TOOL_NAMES: ReadonlySet<string> = new Set(Object.values(SHARE_TOOLS));

/**
 * Whether the caller's kind of credential may hold the tool at all: a consent token holds only
 * CONSENT_TOOLS, a share only its own tool, and ask_agent and workflow_invoke are held by
 * their shares alone (no developer key, no consent token, not the owner's session).
 */
export function holdsTool(caller: Caller, tool: string): boolean {
  if (caller.kind === 'share') return SHARE_TOOLS[caller.share.kind] === tool;
  if (SHARE_TOOL_NAMES.has(tool)) return false;
  return !isConsentToken(caller) || CONSENT_TOOLS.has(tool);
}

export function refuseTool(tool: string, caller?: Caller): ServiceError {
  if (isConsentToken(caller)) {
    return new ServiceError(
      'unauthorized',
      `The tool ${tool} is not in the agent's capability profile: an app connected with OAuth can only read.`,
      { tool },
    );
  }
  return new ServiceError('unauthorized', `The tool ${tool} is not in this credential's capability profile.`, { tool });
}

/**
 * What each kind of caller is called when it is refused what needs the owner's session (the owner
 * has none at the command line).
 */
const CALLER_NAMES: Record<Caller['kind'], string> = {
  owner: 'a command without a session',
  key: 'a developer key',
  consent: "an app's consent token",
  share: "a share's token",
};

export function refuseOwnerOnly(tool: string, caller: Caller): ServiceError {
  return new ServiceError(
    'unauthorized',
    `${tool} needs the owner's signed-in session; ${CALLER_NAMES[caller.kind]} cannot do it.`,
    { tool },
  );
}

interface AccessContext {
  caller: Caller;
  store: Repositories;
}

/**
 * The containers the caller may use, oldest first. Reach "all" includes containers made later. A
 * key's or consent token's call has them from its authentication, read with the credential.
 */
export async function containersInReach(ctx: AccessContext): Promise<Container[]> {
  const { caller } = ctx;
  const all =
    (caller.kind !== 'owner' && caller.kind !== 'share' && caller.accountContainers) ||
    (await ctx.store.containers.list(caller.accountId));
  if (caller.kind === 'owner' || caller.grant.allContainers) return all;
  const ticked = new Set(caller.grant.containerIds);
  return all.filter((c) => ticked.has(c.id));
}

/** A container outside reach is refused exactly like one that does not exist. */
export async function requireReach(ctx: AccessContext, containerId: string): Promise<Container> {
  const container = (await containersInReach(ctx)).find((c) => c.id === containerId);
  if (!container) throw refuseContainer(containerId);
  return container;
}

/** The refusal of a container outside reach, or one that does not exist: the same words for both. */
export const refuseContainer = (containerId: string): ServiceError =>
  new ServiceError('unauthorized', `The container ${containerId} may not be used with this credential.`, {
    container: containerId,
  });

/**
 * The container an operation acts on: the one named, or the only one in reach when none is named.
 * With several (or none) in reach and none named, the caller must say which: 400 `validation`.
 */
export async function resolveContainer(ctx: AccessContext, containerId: string | null | undefined): Promise<Container> {
  if (containerId) return requireReach(ctx, containerId);
  const reach = await containersInReach(ctx);
  if (reach.length === 1) return reach[0]!;
  throw new ServiceError(
    'validation',
    reach.length === 0
      ? 'No container is in reach of this credential.'
      : `container is required: ${reach.length} containers are in reach of this credential.`,
    { fields: ['container'], in_reach: reach.length },
  );
}

/** The profile is outside every container: only the profile tick reaches it. */
export function requireProfile(ctx: AccessContext): void {
  if (ctx.caller.kind !== 'owner' && !ctx.caller.grant.profile) {
    throw new ServiceError(
      'unauthorized',
      'The profile may not be used with this credential: its profile tick is off.',
    );
  }
}
