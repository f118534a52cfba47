/**
 * The only reader of the environment. `loadConfig` is pure: tests pass a literal object.
 * Command-line flags are applied by the CLI on top of what this returns.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseProxyEntry } from './trusted-proxies';

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  /**
   * The shared PostgreSQL store (postgres://…), for several processes on one memory; null: the
   * SQLite file in `dataDir`, the default. The data directory still holds each process's own files.
   */
  readonly databaseUrl: string | null;
  /**
   * Connections in the pool of a process that answers requests on the shared store (besides the
   * ones that listen to the vector feed and hold the turns' locks); unused on SQLite.
   */
  readonly databaseConnections: number;
  /**
   * The vector feed's newest commits kept when it is pruned, on the shared store: a replica further
   * behind (down a long while) reads its indexes again from the store instead of catching up.
   */
  readonly feedKeepCommits: number;
  /**
   * Seconds a learner's claim holds its jobs: one that dies mid-job (kill -9, a lost machine)
   * leaves them to another once this has passed; a live one renews it while it works.
   */
  readonly jobLeaseSeconds: number;
  /** The server's own origin as clients see it; derived from host and port unless set. */
  readonly publicUrl: string | null;
  readonly rateLimitPerMin: number;
  readonly consentTtlDays: number;
  /** How many days the access log keeps what each credential read and wrote. */
  readonly accessLogDays: number;
  /**
   * Seconds the search indexes stay unchanged before they are saved while the server runs, so that
   * a start after a crash reads them instead of rebuilding them; 0 saves them at a clean stop only.
   */
  readonly indexSaveSeconds: number;
  /**
   * Threads the strong tier's refinement runs its model on while no search is waiting (the learning
   * thread and lanes beside it); 0: one a core, up to four.
   */
  readonly refineThreads: number;
  readonly logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** Browser origins allowed to call /mcp-http besides the server's own (DNS-rebinding defence). */
  readonly allowedOrigins: readonly string[];
  /** Reverse proxies (addresses or CIDR networks) whose X-Forwarded-For names the client; none by default. */
  readonly trustedProxies: readonly string[];
  readonly embedder: EmbedderConfig;
  /** Let URL documents reach loopback and private addresses (off: only public addresses). */
  readonly fetchAllowPrivate: boolean;
  /** The language model for turns (ask, workflows, fact extraction), or null: those turns answer 422. */
  readonly model: ModelConfig | null;
}

/** An OpenAI-compatible chat-completions endpoint: ENGRAM_MODEL_URL is its base (…/v1). */
export interface ModelConfig {
  readonly url: string;
  readonly model: string;
  /** Other models of the same endpoint that an ask may name in its `model` field (ENGRAM_ASK_MODELS). */
  readonly askModels?: readonly string[];
  readonly key: string | null;
  readonly timeoutMs: number;
  readonly retries: number;
}

/**
 * `builtin`: the built-in static model makes documents searchable at once and the built-in
 * transformer refines them in the background; `fast`: the static model alone.
 */
type EmbedderConfig =
  | { kind: 'builtin' }
  | { kind: 'fast' }
  | { kind: 'openai'; url: string; model: string; key: string | null }
  | { kind: 'none' };

const DEFAULTS = {
  ENGRAM_HOST: '127.0.0.1',
  ENGRAM_PORT: '8787',
  ENGRAM_RATE_LIMIT_PER_MIN: '600',
  ENGRAM_CONSENT_TTL_DAYS: '30',
  ENGRAM_ACCESS_LOG_DAYS: '90',
  ENGRAM_INDEX_SAVE_SECONDS: '60',
  ENGRAM_REFINE_THREADS: '0',
  ENGRAM_JOB_LEASE_SECONDS: '120',
  ENGRAM_DATABASE_CONNECTIONS: '10',
  ENGRAM_FEED_KEEP_COMMITS: '50000',
  ENGRAM_LOG_LEVEL: 'info',
} as const;

const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;

export class ConfigError extends Error {}

/** Reads and validates every variable at once; throws one ConfigError listing all bad ones. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const problems: string[] = [];
  const get = (name: keyof typeof DEFAULTS) => env[name] ?? DEFAULTS[name];
  const int = (name: keyof typeof DEFAULTS, min: number, max: number) => {
    const raw = get(name);
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
    }
    return n;
  };
  const port = int('ENGRAM_PORT', 0, 65535);
  const rateLimitPerMin = int('ENGRAM_RATE_LIMIT_PER_MIN', 1, 1_000_000);
  const consentTtlDays = int('ENGRAM_CONSENT_TTL_DAYS', 1, 3650);
  const accessLogDays = int('ENGRAM_ACCESS_LOG_DAYS', 1, 3650);
  const indexSaveSeconds = int('ENGRAM_INDEX_SAVE_SECONDS', 0, 86_400);
  const refineThreads = int('ENGRAM_REFINE_THREADS', 0, 64);
  const jobLeaseSeconds = int('ENGRAM_JOB_LEASE_SECONDS', 2, 86_400);
  // A transaction holds a connection for its length: one more is needed for anything else meanwhile.
  const databaseConnections = int('ENGRAM_DATABASE_CONNECTIONS', 2, 1000);
  // Fewer than a thousand would send a replica briefly behind (a reconnection, a burst) back to the store.
  const feedKeepCommits = int('ENGRAM_FEED_KEEP_COMMITS', 1000, 100_000_000);
  const logLevel = get('ENGRAM_LOG_LEVEL') as Config['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`ENGRAM_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const publicUrl = env.ENGRAM_PUBLIC_URL ? env.ENGRAM_PUBLIC_URL.replace(/\/+$/, '') : null;
  if (publicUrl && !/^https?:\/\/[^/]+$/.test(publicUrl)) {
    problems.push('ENGRAM_PUBLIC_URL must be an origin such as https://memory.example.org');
  }
  const databaseUrl = env.ENGRAM_DATABASE_URL || null;
  if (databaseUrl && !(URL.canParse(databaseUrl) && /^postgres(ql)?:$/.test(new URL(databaseUrl).protocol))) {
    problems.push('ENGRAM_DATABASE_URL must be a PostgreSQL URL such as postgres://engram@db.example.org/engram');
  }
  const embedder = embedderConfig(env, problems);
  const fetchAllowPrivate = flag(env, 'ENGRAM_FETCH_ALLOW_PRIVATE', problems);
  const model = modelConfig(env, problems);
  const allowedOrigins = (env.ENGRAM_ALLOWED_ORIGINS ?? '')
    .split(',')
    .map((o) => o.trim().replace(/\/+$/, ''))
    .filter(Boolean);
  for (const o of allowedOrigins)
    if (!/^[a-z][a-z0-9+.-]*:\/\/[^/]+$/i.test(o)) problems.push(`ENGRAM_ALLOWED_ORIGINS: "${o}" is not an origin`);
  const trustedProxies = (env.ENGRAM_TRUSTED_PROXIES ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  for (const p of trustedProxies)
    if (!parseProxyEntry(p)) problems.push(`ENGRAM_TRUSTED_PROXIES: "${p}" is not an IP address or CIDR network`);
  if (problems.length) throw new ConfigError(`Bad configuration:\n  ${problems.join('\n  ')}`);
  return Object.freeze({
    host: get('ENGRAM_HOST'),
    port,
    dataDir: env.ENGRAM_DATA_DIR ?? join(env.HOME ?? homedir(), '.engram'),
    databaseUrl,
    databaseConnections,
    feedKeepCommits,
    jobLeaseSeconds,
    publicUrl,
    rateLimitPerMin,
    consentTtlDays,
    accessLogDays,
    indexSaveSeconds,
    refineThreads,
    logLevel,
    allowedOrigins,
    trustedProxies,
    embedder,
    fetchAllowPrivate,
    model,
  });
}

/** ENGRAM_MODEL_URL and ENGRAM_MODEL together turn the model on; neither leaves it off. */
function modelConfig(env: Record<string, string | undefined>, problems: string[]): ModelConfig | null {
  const url = env.ENGRAM_MODEL_URL?.replace(/\/+$/, '');
  const model = env.ENGRAM_MODEL;
  if (!url && !model) {
    if (env.ENGRAM_ASK_MODELS)
      problems.push('ENGRAM_ASK_MODELS names models of ENGRAM_MODEL_URL: set that and ENGRAM_MODEL too');
    return null;
  }
  if (!url || !/^https?:\/\/[^/]/.test(url))
    problems.push(
      'ENGRAM_MODEL_URL must be an http(s) URL of an OpenAI-compatible API, such as http://127.0.0.1:11434/v1',
    );
  if (!model) problems.push('ENGRAM_MODEL must name the chat model when ENGRAM_MODEL_URL is set');
  const seconds = Number(env.ENGRAM_MODEL_TIMEOUT_SECONDS ?? '120');
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 3600)
    problems.push('ENGRAM_MODEL_TIMEOUT_SECONDS must be an integer from 1 to 3600');
  const retries = Number(env.ENGRAM_MODEL_RETRIES ?? '2');
  if (!Number.isInteger(retries) || retries < 0 || retries > 5)
    problems.push('ENGRAM_MODEL_RETRIES must be an integer from 0 to 5');
  const askModels = (env.ENGRAM_ASK_MODELS ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  return {
    url: url ?? '',
    model: model ?? '',
    askModels,
    key: env.ENGRAM_MODEL_KEY || null,
    timeoutMs: seconds * 1000,
    retries,
  };
}

/**
 * ENGRAM_EMBEDDER: builtin (the fast and the strong tier, the default), fast (the static model only), openai (an
 * OpenAI-compatible endpoint, also chosen by ENGRAM_EMBED_URL alone) or none (keyword-only).
 */
function embedderConfig(env: Record<string, string | undefined>, problems: string[]): EmbedderConfig {
  const choice = env.ENGRAM_EMBEDDER ?? (env.ENGRAM_EMBED_URL ? 'openai' : 'builtin');
  if (choice === 'builtin' || choice === 'fast' || choice === 'none') return { kind: choice };
  if (choice !== 'openai') {
    problems.push(`ENGRAM_EMBEDDER must be builtin, fast, openai or none (got "${choice}")`);
    return { kind: 'none' };
  }
  if (!env.ENGRAM_EMBED_URL || !/^https?:\/\//.test(env.ENGRAM_EMBED_URL))
    problems.push('ENGRAM_EMBED_URL must be an http(s) URL for the openai embedder');
  if (!env.ENGRAM_EMBED_MODEL) problems.push('ENGRAM_EMBED_MODEL must name the model for the openai embedder');
  return {
    kind: 'openai',
    url: env.ENGRAM_EMBED_URL ?? '',
    model: env.ENGRAM_EMBED_MODEL ?? '',
    key: env.ENGRAM_EMBED_KEY ?? null,
  };
}

function flag(env: Record<string, string | undefined>, name: string, problems: string[]): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === '0' || raw === 'false') return false;
  if (raw === '1' || raw === 'true') return true;
  problems.push(`${name} must be true or false (got "${raw}")`);
  return false;
}

/** What `engram mcp` (the stdio bridge) needs: the server's origin and a developer key. */
export function loadBridgeConfig(env: Record<string, string | undefined> = process.env): {
  url: string;
  key: string | null;
} {
  return { url: (env.ENGRAM_BASE_URL ?? 'http://127.0.0.1:8787').replace(/\/+$/, ''), key: env.ENGRAM_API_KEY ?? null };
}
