/**
 * Every operation, and the two lists the doors read: the contract's tools (docs/protocol.md, in its order), which MCP
 * serves, and the tools only shares hold. REST mounts its own table (http/rest.ts).
 */
import { appAccessLog, keyAccessLog } from './access-log';
import { addDocument } from './add-document';
import { addMemory } from './add-memory';
import { addRule } from './add-rule';
import { askAgent } from './ask-agent';
import { browseContainer } from './browse-container';
import { confirmFact } from './confirm-fact';
import { createShare } from './create-share';
import { createContainer } from './create-container';
import { createKey } from './create-key';
import { deleteContainer } from './delete-container';
import { deleteDocument } from './delete-document';
import { deleteRule } from './delete-rule';
import { deleteWithFacts } from './delete-with-facts';
import { disconnectApp } from './disconnect-app';
import { documentPassages } from './document-passages';
import { forgetMemory } from './forget-memory';
import { forgettingPlan } from './forgetting-plan';
import { getContainer } from './get-container';
import { getDocument } from './get-document';
import { getAccount } from './get-account';
import { getFact } from './get-fact';
import { getProfile } from './get-profile';
import { keyUsage } from './key-usage';
import { learningProgress } from './learning-progress';
import { listConnectedApps } from './list-connected-apps';
import { listConsentTokens } from './list-consent-tokens';
import { listContainers } from './list-containers';
import { listDocuments } from './list-documents';
import { listShares } from './list-shares';
import { listKeys } from './list-keys';
import { memoryRules } from './memory-rules';
import { revokeShare } from './revoke-share';
import { revokeKey } from './revoke-key';
import { searchMemories } from './search-memories';
import { setKeyContainers } from './set-key-containers';
import { updateContainer } from './update-container';
import { updateKey } from './update-key';
import { updateMemory } from './update-memory';
import { workflowInvoke } from './workflow-invoke';

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
