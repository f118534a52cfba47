/** Rules: the owner's standing instructions, for every caller or for one credential. */

export interface Rule {
  id: string;
  accountId: string;
  credentialId: string | null;
  text: string;
  createdAt: number;
}

export interface RuleRepository {
  /** The account's rules for every caller and, when given, those for one credential; oldest first. */
  list(accountId: string, credentialId: string | null): Promise<Rule[]>;
  insert(rule: Rule): Promise<void>;
  get(accountId: string, id: string): Promise<Rule | null>;
  delete(accountId: string, id: string): Promise<void>;
}
