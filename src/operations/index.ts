/**
 * Every operation, and the two lists the doors read: the contract's tools (docs/protocol.md, in its order), which MCP
 * serves, and the tools only shares hold. REST mounts its own table (http/rest.ts).
 */
import { appAccessLog, keyAccessLog } from './account/access-log';
import { addDocument } from './documents/add-document';
import { addMemory } from './facts/add-memory';
import { addRule } from './rules/add-rule';
import { askAgent } from './agent/ask-agent';
import { browseContainer } from './containers/browse-container';
import { confirmFact } from './facts/confirm-fact';
import { createShare } from './shares/create-share';
import { createContainer } from './containers/create-container';
import { createKey } from './keys/create-key';
import { deleteContainer } from './containers/delete-container';
import { deleteDocument } from './documents/delete-document';
import { deleteRule } from './rules/delete-rule';
import { deleteWithFacts } from './forgetting/delete-with-facts';
import { disconnectApp } from './apps/disconnect-app';
import { documentPassages } from './documents/document-passages';
import { forgetMemory } from './facts/forget-memory';
import { forgettingPlan } from './forgetting/forgetting-plan';
import { getContainer } from './containers/get-container';
import { getDocument } from './documents/get-document';
import { getAccount } from './account/get-account';
import { getFact } from './facts/get-fact';
import { getProfile } from './search/get-profile';
import { keyUsage } from './keys/key-usage';
import { learningProgress } from './learning-progress';
import { listConnectedApps } from './apps/list-connected-apps';
import { listConsentTokens } from './apps/list-consent-tokens';
import { listContainers } from './containers/list-containers';
import { listDocuments } from './documents/list-documents';
import { listShares } from './shares/list-shares';
import { listKeys } from './keys/list-keys';
import { memoryRules } from './rules/memory-rules';
import { revokeShare } from './shares/revoke-share';
import { revokeKey } from './keys/revoke-key';
import { searchMemories } from './search/search-memories';
import { setKeyContainers } from './keys/set-key-containers';
import { updateContainer } from './containers/update-container';
import { updateKey } from './keys/update-key';
import { updateMemory } from './facts/update-memory';
import { workflowInvoke } from './agent/workflow-invoke';

export {
  addDocument,
  addMemory,
  addRule,
  createContainer,
  createKey,
  deleteContainer,
  deleteDocument,
  deleteRule,
  disconnectApp,
  forgetMemory,
  listConnectedApps,
  getContainer,
  getDocument,
  getProfile,
  keyUsage,
  listContainers,
  listDocuments,
  listKeys,
  memoryRules,
  revokeKey,
  searchMemories,
  setKeyContainers,
  updateContainer,
  updateKey,
  askAgent,
  workflowInvoke,
  createShare,
  listShares,
  revokeShare,
  confirmFact,
  browseContainer,
  documentPassages,
  forgettingPlan,
  deleteWithFacts,
  keyAccessLog,
  appAccessLog,
  getFact,
  updateMemory,
  getAccount,
  listConsentTokens,
  learningProgress,
};

/** The contract's tools, in the order of its tool table (docs/protocol.md, "Tools, levels and doors"). */
export const TOOLS = [
  listContainers,
  searchMemories,
  getProfile,
  listDocuments,
  getDocument,
  memoryRules,
  addMemory,
  addDocument,
  deleteDocument,
  forgetMemory,
] as const;

/** The tools held only by shares: ask_agent (agent share) and workflow_invoke (workflow, MCP only). */
export const SHARE_OPERATIONS = [askAgent, workflowInvoke] as const;
