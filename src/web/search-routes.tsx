/** @jsxImportSource hono/jsx */
/** The owner's search box, through search_memories as the owner or, "see as", as one of their keys or apps. */
import { Hono } from 'hono';
import { seeAs } from '../auth/see-as';
import type { AppEnv } from '../http/app-env';
import { learningProgress, refinedPercent } from '../operations/learning-progress';
import { listConsentTokens, listContainers, listKeys, searchMemories } from '../operations';
import { contextFor, invoke } from '../operations/operation';
import { resourceOf } from '../site';
import { type ContainerView, when } from './format';
import { fixable, type Owner, type OwnerKit } from './owner-kit';
import { type SeeAsOption, SearchPage } from './search-page';

export function searchRoutes({ services, site, html, page }: OwnerKit): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  /** The owner's active keys, then each live consent token of a connected app (its approvals may differ in reach). */
  async function seeAsOptions(o: Owner): Promise<SeeAsOption[]> {
    const { active } = await invoke(listKeys, o.ctx, {});
    const tokens = (await invoke(listConsentTokens, o.ctx, {})).tokens.filter((t) => t.state === 'active');
    const perApp = new Map<string, number>();
    for (const t of tokens) perApp.set(t.client_id ?? t.id, (perApp.get(t.client_id ?? t.id) ?? 0) + 1);
    return [
      ...active.map((k) => ({ id: k.id, label: `Key: ${k.name} (${k.hint})` })),
      ...tokens.map((t) => ({
        id: t.id,
        label: `App: ${t.app}${(perApp.get(t.client_id ?? t.id) ?? 0) > 1 ? ` (approved ${when(t.created_at)})` : ''}`,
      })),
    ];
  }

  app.get(
    '/search',
    page(async (c, o) => {
      const q = c.req.query('q') ?? '';
      const container = c.req.query('container') || '*';
      const as = c.req.query('as') ?? '';
      const options = await seeAsOptions(o);
      let answer = null;
      let error: string | null = null;
      let containers: ContainerView[] = [];
      try {
        // Seen as a credential, every call is that credential's (its reach, profile tick and level) but
        // counts as the owner's.
        const ctx = as
          ? contextFor(
              services,
              await seeAs(services.store, services.clock, o.ctx.caller, as, { audience: resourceOf(site) }),
              o.ctx.traceId,
            )
          : o.ctx;
        ({ containers } = await invoke(listContainers, ctx, {}));
        if (q.trim()) answer = await invoke(searchMemories, ctx, { q, container });
      } catch (err) {
        if (!fixable(err)) throw err;
        error = err.message;
      }
      const refined = refinedPercent(await invoke(learningProgress, o.ctx, {}));
      return html(
        c,
        <SearchPage
          q={q}
          container={container}
          containers={containers}
          as={as}
          seeAs={options}
          answer={answer}
          csrf={o.csrf}
          email={o.email}
          error={error}
          refined={refined}
        />,
      );
    }),
  );

  return app;
}
