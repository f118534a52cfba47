/** @jsxImportSource hono/jsx */
/** The owner's search box, through search_memories as any caller. */
import { Hono } from 'hono';
import type { AppEnv } from '../http/app-env';
import { learningProgress, refinedPercent } from '../learning/progress';
import { listContainers, searchMemories } from '../operations';
import { invoke } from '../operations/operation';
import { fixable, type OwnerKit } from './owner-kit';
import { SearchPage } from './search-page';

export function searchRoutes({ html, page }: OwnerKit): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/search', page(async (c, o) => {
    const q = c.req.query('q') ?? '';
    const container = c.req.query('container') || '*';
    const { containers } = await invoke(listContainers, o.ctx, {});
    let answer = null;
    let error: string | null = null;
    if (q.trim()) {
      try {
        answer = await invoke(searchMemories, o.ctx, { q, container });
      } catch (err) {
        if (!fixable(err)) throw err;
        error = err.message;
      }
    }
    const refined = refinedPercent(learningProgress(o.ctx));
    return html(c, <SearchPage q={q} container={container} containers={containers} answer={answer} csrf={o.csrf} email={o.email} error={error} refined={refined} />);
  }));

  return app;
}
