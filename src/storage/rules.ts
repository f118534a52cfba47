/** Rules: the owner's standing instructions, for every caller or for one credential. */

export interface Rule {
  id: string;
  accountId: string;
  credentialId: string | null;
  text: string;
  createdAt: number;
}

export interface RuleRepository {
  listRules(accountId: string, credentialId: string | null): Rule[];
  insertRule(rule: Rule): void;
  getRule(accountId: string, id: string): Rule | null;
  deleteRule(accountId: string, id: string): void;
}
