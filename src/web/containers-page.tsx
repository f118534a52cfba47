/** @jsxImportSource hono/jsx */
/** Memory: the owner's containers, each with a link to its documents and facts, and a form to make one. */
import type { ContainerView } from './format';
import { Layout, Messages } from './layout';
import { ModelProgress } from './model-progress';
import type { LearningProgress } from '../operations/learning-progress';

export interface ContainersPageProps {
  containers: ContainerView[];
  csrf: string;
  email: string;
  notice?: string | null;
  error?: string | null;
  /** Share of passages the strong embedding tier has refined, while refinement runs; else null. */
  refined: number | null;
  /** When every passage is expected to be refined, in words (fullQualityIn); null when unknown. */
  fullQuality?: string | null;
  /** How far learning has got: the language model's part is said here. */
  progress: LearningProgress;
}

export function ContainersPage({
  containers,
  csrf,
  email,
  notice,
  error,
  refined,
  fullQuality,
  progress,
}: ContainersPageProps) {
  return (
    <Layout title="Memory" signedInAs={email} csrf={csrf} current="/containers">
      <section class="card" aria-labelledby="containers-title">
        <h1 id="containers-title">Your memory</h1>
        <Messages notice={notice} error={error} />
        <p class="muted">
          A container is one topic of your memory. Keys and apps reach only the containers you tick for them.
        </p>
        {refined !== null && refined < 100 ? (
          <p class="muted" id="search-quality">
            Search quality: {refined} % refined.{fullQuality ? ` Full quality expected ${fullQuality}.` : ''}
          </p>
        ) : null}
        <ModelProgress progress={progress} />
        {containers.length === 0 ? (
          <p id="no-containers">No containers yet: make the first one below.</p>
        ) : (
          <ul class="plain" id="containers">
            {containers.map((c) => (
              <li data-container-id={c.id}>
                <a href={`/containers/${c.id}`}>{c.name}</a>
                {c.description ? <span class="muted"> · {c.description}</span> : null}
              </li>
            ))}
          </ul>
        )}
      </section>
      <section class="card" aria-labelledby="new-container-title">
        <h2 id="new-container-title">Make a container</h2>
        <form method="post" action="/containers">
          <input type="hidden" name="csrf" value={csrf} />
          <label class="field">
            <span>Name</span>
            <input type="text" name="name" required maxlength={200} />
          </label>
          <label class="field">
            <span>Description</span>
            <input type="text" name="description" maxlength={2000} />
          </label>
          <div class="actions">
            <button type="submit" class="primary">
              Make container
            </button>
          </div>
        </form>
      </section>
    </Layout>
  );
}
