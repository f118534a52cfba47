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
  recordUsage(entry: UsageEntry): void;
  summarizeUsage(accountId: string, credentialId: string, sinceMs: number): UsageSummary;
}
