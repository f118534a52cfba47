/** Usage: one row a call made with a credential, summarized for its owner. */

export type UsageOutcome = 'ok' | 'refused' | 'error';

export interface UsageEntry {
  accountId: string;
  credentialId: string;
  tool: string;
  outcome: UsageOutcome;
  status: number;
  at: number;
}

export interface UsageSummary {
  perDay: { day: string; calls: number; refused: number }[];
  perTool: { tool: string; calls: number; refused: number }[];
  refused: number;
  recent: { at: number; tool: string; outcome: UsageOutcome; status: number }[];
}

export interface UsageRepository {
  /** Records calls, in one write. */
  record(entries: UsageEntry[]): Promise<void>;
  /** The credential's calls since `sinceMs`, per day and per tool, and its last twenty. */
  summarize(accountId: string, credentialId: string, sinceMs: number): Promise<UsageSummary>;
}
