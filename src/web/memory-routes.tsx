/** @jsxImportSource hono/jsx */
/**
 * Memory pages: containers, a container's documents and facts, a document's passages, and deletes
 * that say beforehand what they forget (reviewed facts are kept unless ticked).
 */
import { Hono } from 'hono';
import type { AppEnv } from '../http/app-env';
import { fullQualityIn, learningProgress, refinedPercent } from '../operations/learning-progress';
import {
  addDocument,
  browseContainer,
  createContainer,
  deleteWithFacts,
  documentPassages,
  forgettingPlan,
  getDocument,
  listContainers,
  updateContainer,
} from '../operations';
import { forgottenSummary } from '../operations/forgetting/forgetting';
import { invoke } from '../operations/operation';
import type { FactView } from './container-page';
import { type ConfirmChoices, ConfirmPage } from './confirm-page';
import { ContainerPage } from './container-page';
import { ContainersPage } from './containers-page';
import { DocumentPage } from './document-page';
import { fixable, idParam, list, type Owner, type OwnerKit, pageFrame, str } from './owner-kit';

/** The tick boxes of a delete's confirmation page: reviewed facts, kept unless ticked. */
const FORGET_TOO = 'forget_fact';

export function memoryRoutes({ html, flash, page, post }: OwnerKit): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get(
    '/containers',
    page(async (c, o, f) => {
      const { containers } = await invoke(listContainers, o.ctx, {});
      const progress = await invoke(learningProgress, o.ctx, {});
      return html(
        c,
        <ContainersPage
          containers={containers}
          {...pageFrame(o, f)}
          refined={refinedPercent(progress)}
          fullQuality={fullQualityIn(progress)}
          progress={progress}
        />,
      );
    }),
  );

  app.post(
    '/containers',
    post(
      () => '/containers',
      async (_c, o, form) => {
        const made = await invoke(createContainer, o.ctx, {
          name: str(form, 'name'),
          description: str(form, 'description'),
        });
        return { to: `/containers/${made.id}`, notice: `Made “${made.name}”.` };
      },
    ),
  );

  const ownContainer = async (o: Owner, id: string) =>
    (await invoke(listContainers, o.ctx, {})).containers.find((x) => x.id === id) ?? null;

  app.get(
    '/containers/:id',
    page(async (c, o, f) => {
      let view;
      try {
        view = await invoke(browseContainer, o.ctx, {
          container_id: idParam(c),
          cursor: c.req.query('cursor') || null,
          facts_cursor: c.req.query('facts') || null,
        });
      } catch (err) {
        if (!fixable(err)) throw err;
        flash(c, 'error', 'No such container.');
        return c.redirect('/containers', 303);
      }
      return html(
        c,
        <ContainerPage
          container={view.container}
          documents={view.documents}
          documentCount={view.document_count}
          nextCursor={view.next_cursor}
          facts={view.facts}
          factCount={view.fact_count}
          nextFactsCursor={view.next_facts_cursor}
          paged={{ documents: !!c.req.query('cursor'), facts: !!c.req.query('facts') }}
          {...pageFrame(o, f)}
        />,
      );
    }),
  );

  app.post(
    '/containers/:id',
    post(
      (c) => `/containers/${idParam(c)}`,
      async (c, o, form) => {
        const id = idParam(c);
        await invoke(updateContainer, o.ctx, {
          container_id: id,
          name: str(form, 'name'),
          description: str(form, 'description'),
          learns_into_profile: str(form, 'learns_into_profile') === 'on',
        });
        return { to: `/containers/${id}`, notice: 'Saved.' };
      },
    ),
  );

  app.post(
    '/containers/:id/documents',
    post(
      (c) => `/containers/${idParam(c)}`,
      async (c, o, form) => {
        const id = idParam(c);
        const url = str(form, 'url').trim();
        const content = str(form, 'content');
        const title = str(form, 'title').trim();
        // Both boxes filled is the owner's mistake to fix, as for an app: add_document refuses it.
        await invoke(addDocument, o.ctx, {
          container: id,
          ...(url ? { url } : {}),
          ...(content.trim() || !url ? { content } : {}),
          ...(title ? { title } : {}),
        });
        return { to: `/containers/${id}`, notice: 'Added. It will be searchable once learned.' };
      },
    ),
  );

  app.get(
    '/containers/:id/delete',
    page(async (c, o) => {
      const container = await ownContainer(o, idParam(c));
      if (!container) return c.redirect('/containers', 303);
      const plan = await invoke(forgettingPlan, o.ctx, { container_id: container.id });
      return html(
        c,
        <ConfirmPage
          title={`Delete “${container.name}”?`}
          current="/containers"
          csrf={o.csrf}
          email={o.email}
          action={`/containers/${container.id}/delete`}
          button="Delete container"
          cancel={`/containers/${container.id}`}
          choices={keptChoices(plan.kept)}
          message={`This deletes ${plan.loss}, and keys lose their reach to it. This cannot be undone.`}
        />,
      );
    }),
  );

  app.post(
    '/containers/:id/delete',
    post(
      (c) => `/containers/${idParam(c)}`,
      async (c, o, form) => {
        const done = await invoke(deleteWithFacts, o.ctx, {
          container_id: idParam(c),
          forget_facts: list(form, FORGET_TOO),
        });
        return { to: '/containers', notice: forgottenSummary(done) };
      },
    ),
  );

  app.get(
    '/documents/:id',
    page(async (c, o) => {
      let document;
      try {
        document = await invoke(getDocument, o.ctx, { document_id: idParam(c) });
      } catch (err) {
        if (!fixable(err)) throw err;
        flash(c, 'error', err.message);
        return c.redirect('/containers', 303);
      }
      const container = await ownContainer(o, document.container);
      const { passages } = await invoke(documentPassages, o.ctx, { document_id: document.id });
      return html(
        c,
        <DocumentPage document={document} container={container} passages={passages} csrf={o.csrf} email={o.email} />,
      );
    }),
  );

  app.get(
    '/documents/:id/delete',
    page(async (c, o) => {
      let document;
      let plan;
      try {
        document = await invoke(getDocument, o.ctx, { document_id: idParam(c) });
        plan = await invoke(forgettingPlan, o.ctx, { document_id: document.id });
      } catch (err) {
        if (!fixable(err)) throw err;
        return c.redirect('/containers', 303);
      }
      const what = document.title ? `“${document.title}”` : (document.url ?? document.id);
      return html(
        c,
        <ConfirmPage
          title={`Delete ${what}?`}
          current="/containers"
          csrf={o.csrf}
          email={o.email}
          action={`/documents/${document.id}/delete`}
          button="Delete document"
          cancel={`/documents/${document.id}`}
          choices={keptChoices(plan.kept)}
          message={`This deletes ${plan.loss}. This cannot be undone.`}
        />,
      );
    }),
  );

  app.post(
    '/documents/:id/delete',
    post(
      (c) => `/documents/${idParam(c)}`,
      async (c, o, form) => {
        const document = await invoke(getDocument, o.ctx, { document_id: idParam(c) });
        const done = await invoke(deleteWithFacts, o.ctx, {
          document_id: document.id,
          forget_facts: list(form, FORGET_TOO),
        });
        return { to: `/containers/${document.container}`, notice: forgottenSummary(done) };
      },
    ),
  );

  return app;
}

/** The facts a delete keeps (the owner confirmed or edited them), each with a tick box to forget it too. */
function keptChoices(kept: FactView[]): ConfirmChoices | null {
  if (kept.length === 0) return null;
  return {
    legend: `Kept: ${kept.length === 1 ? 'a fact' : 'facts'} you confirmed or edited since ${kept.length === 1 ? 'it was' : 'they were'} learned. Tick to forget too.`,
    name: FORGET_TOO,
    items: kept.map((m) => ({ value: m.id, label: m.content, note: m.static ? 'In your profile.' : undefined })),
  };
}
