/** @jsxImportSource hono/jsx */
/**
 * A confirmation page before a removal: it works without script, and says what will be lost. A
 * removal that keeps some things unless told (facts the owner confirmed, when a document goes)
 * lists them with a tick box each.
 */
import { Layout } from './layout';

/** Things kept unless ticked: each ticked one is posted as `name` with its `value`. */
export interface ConfirmChoices {
  legend: string;
  name: string;
  items: { value: string; label: string; note?: string }[];
}

export interface ConfirmPageProps {
  title: string;
  message: string;
  action: string;
  button: string;
  cancel: string;
  csrf: string;
  email: string;
  current?: string;
  hidden?: Record<string, string>;
  choices?: ConfirmChoices | null;
}

export function ConfirmPage({
  title,
  message,
  action,
  button,
  cancel,
  csrf,
  email,
  current,
  hidden,
  choices,
}: ConfirmPageProps) {
  return (
    <Layout title={title} signedInAs={email} csrf={csrf} current={current}>
      <div class="card">
        <h1>{title}</h1>
        <p id="confirm-message">{message}</p>
        <form method="post" action={action}>
          <input type="hidden" name="csrf" value={csrf} />
          {Object.entries(hidden ?? {}).map(([name, value]) => (
            <input type="hidden" name={name} value={value} />
          ))}
          {choices?.items.length ? (
            <fieldset id="kept-choices">
              <legend>{choices.legend}</legend>
              {choices.items.map((item) => (
                <div class="choice">
                  <label class="tick">
                    <input type="checkbox" name={choices.name} value={item.value} />
                    <span>{item.label}</span>
                  </label>
                  {item.note ? <small class="muted">{item.note}</small> : null}
                </div>
              ))}
            </fieldset>
          ) : null}
          <div class="actions">
            <button type="submit" class="danger">
              {button}
            </button>
            <a href={cancel}>Cancel</a>
          </div>
        </form>
      </div>
    </Layout>
  );
}
