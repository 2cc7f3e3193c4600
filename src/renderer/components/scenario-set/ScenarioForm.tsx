// The scenario set as a form. Every input reads and writes one path of the JSON draft, so the
// JSON view stays the same document; errors are shown at their input, named in words, once the
// input was left or Save was tried (use-fields.ts).
import { useId, useState, type ReactNode } from 'react';
import { fieldInWords, fieldSentence, labelSentence } from '../../../core/platform/field-names';
import { TRIGGER_TYPES, type TriggerType } from '../../../core/platform/things/schema';
import { ACTION_FIELDS, actionFieldLabel } from '../../../core/platform/things/actions/fields';
import type { ActionType } from '../../../core/platform/things/actions/registry';
import { BytesInput, type BytesText } from '../BytesInput';
import { FieldMessages } from '../ErrorNotice';
import { TextField } from '../TextField';
import { parseWholeNumber } from '../../../core/whole-number';
import { useShownAfterLeaving } from '../../lib/use-fields';
import {
  asText,
  completeUuid,
  fromNumberText,
  shortUuid,
  shownBytes,
  storedBytes,
} from './draft-text';
import {
  actionChoices,
  actionFieldsShown,
  getIn,
  isAllowedActionField,
  isAllowedTriggerField,
  isObject,
  newAction,
  newScenario,
  pathKey,
  triggerFieldsShown,
  withActionType,
  withTriggerType,
  type Json,
  type JsonPath,
  type TriggerField,
} from '../../lib/scenario-draft';

export interface Draft {
  value: Json;
  errors: ReadonlyMap<string, string[]>;
  /** Rules and board lint that do not block Save, by field path. */
  warnings: ReadonlyMap<string, string[]>;
  set: (path: JsonPath, value: Json | undefined) => void;
  move: (path: JsonPath, from: number, to: number) => void;
  /** Id of a <datalist> of the product's UUIDs, offered in UUID inputs. */
  uuidListId: string;
}

const TRIGGER_LABELS: Record<TriggerField, string> = {
  serviceUuid: 'Notification service UUID',
  characteristicUuid: 'Notification characteristic UUID',
};

function messagesAt(draft: Draft, path: JsonPath, of: 'errors' | 'warnings' = 'errors'): string[] {
  return draft[of].get(pathKey(path)) ?? [];
}

/**
 * A GATT_WRITE's data: typed in any format, stored as the base64 the platform wants. The typed
 * text is kept while it stands for the stored value; a change from elsewhere (the JSON view, an
 * import) is shown anew in the chosen format.
 */
function DraftBytesInput({ draft, path, label }: { draft: Draft; path: JsonPath; label: string }) {
  const stored = asText(getIn(draft.value, path));
  const [typed, setTyped] = useState<BytesText>(() => shownBytes(stored, 'hex'));
  const value = storedBytes(typed) === stored ? typed : shownBytes(stored, typed.format);
  const key = pathKey(path);
  return (
    <BytesInput
      label={label}
      value={value}
      onChange={(next) => {
        setTyped(next);
        draft.set(path, storedBytes(next));
      }}
      messages={messagesAt(draft, path)}
      showAfterLeaving
      warnings={messagesAt(draft, path, 'warnings')}
      data-path={key}
      className="grow"
    />
  );
}

function DraftInput({
  draft,
  path,
  label,
  numeric = false,
  removable = false,
}: {
  draft: Draft;
  path: JsonPath;
  label: string;
  numeric?: boolean;
  removable?: boolean;
}) {
  const uuid = path.at(-1) === 'serviceUuid' || path.at(-1) === 'characteristicUuid';
  const stored = getIn(draft.value, path);
  const text = asText(stored);
  // A number kept as typed says what is wrong with the text, not that it is not a number.
  const typedNumber = numeric && typeof stored === 'string' ? parseWholeNumber(stored) : undefined;
  const typed = (value: string) => {
    if (numeric) draft.set(path, fromNumberText(value));
    else if (uuid) draft.set(path, completeUuid(value) ?? value);
    else draft.set(path, value);
  };
  return (
    <TextField
      label={label}
      value={text}
      onChange={typed}
      onBlur={uuid ? () => draft.set(path, shortUuid(text) ?? text) : undefined}
      messages={typedNumber && !typedNumber.ok ? [typedNumber.message] : messagesAt(draft, path)}
      showAfterLeaving
      warnings={messagesAt(draft, path, 'warnings')}
      mono={!numeric}
      inputMode={numeric ? 'numeric' : undefined}
      list={uuid ? draft.uuidListId : undefined}
      data-path={pathKey(path)}
      className={uuid ? 'uuid' : numeric ? 'number' : 'grow'}
    >
      {removable && (
        <button
          type="button"
          className="link"
          aria-label={`Remove ${pathKey(path)}`}
          onClick={() => draft.set(path, undefined)}
        >
          Remove
        </button>
      )}
    </TextField>
  );
}

const TRIGGER_CHOICES = TRIGGER_TYPES.map((type) => ({ value: type, label: type }));

function TypeSelect<T extends string>({
  draft,
  path,
  label,
  types,
  onChoose,
}: {
  draft: Draft;
  path: JsonPath;
  label: string;
  types: readonly { value: T; label: string }[];
  onChoose: (type: T) => void;
}) {
  const id = useId();
  const current = asText(getIn(draft.value, path));
  const known = types.some((t) => t.value === current);
  const gate = useShownAfterLeaving<HTMLSelectElement>();
  const messages = gate.shown ? messagesAt(draft, path).map((m) => labelSentence(label, m)) : [];
  return (
    <div className="field type">
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        value={current}
        data-path={pathKey(path)}
        onBlur={gate.onBlur}
        aria-invalid={messages.length > 0 || undefined}
        aria-describedby={messages.length > 0 ? `${id}-error` : undefined}
        onChange={(event) => onChoose(event.target.value as T)}
      >
        {!known && (
          <option value={current} disabled>
            {current === '' ? '(missing)' : current}
          </option>
        )}
        {types.map((t) => (
          <option key={t.value} value={t.value}>
            {t.label}
          </option>
        ))}
      </select>
      <FieldMessages id={`${id}-error`} messages={messages} />
      <FieldMessages
        id={`${id}-warning`}
        messages={messagesAt(draft, path, 'warnings').map((m) => labelSentence(label, m))}
        tone="warning"
      />
    </div>
  );
}

function ItemControls({
  draft,
  listPath,
  index,
  count,
  what,
}: {
  draft: Draft;
  listPath: JsonPath;
  index: number;
  count: number;
  what: string;
}) {
  return (
    <span className="item-controls">
      <button
        type="button"
        aria-label={`Move ${what} up`}
        title={`Move ${what} up`}
        disabled={index === 0}
        onClick={() => draft.move(listPath, index, index - 1)}
      >
        ↑
      </button>
      <button
        type="button"
        aria-label={`Move ${what} down`}
        title={`Move ${what} down`}
        disabled={index === count - 1}
        onClick={() => draft.move(listPath, index, index + 1)}
      >
        ↓
      </button>
      <button
        type="button"
        className="danger"
        aria-label={`Remove ${what}`}
        title={`Remove ${what}`}
        onClick={() => draft.set([...listPath, index], undefined)}
      >
        ✕
      </button>
    </span>
  );
}

/**
 * Problems of a whole scenario, action list or the set: they have no input to leave, so they are
 * shown as soon as they exist, in the words the JSON view uses.
 */
function ObjectMessages({ draft, path }: { draft: Draft; path: JsonPath }) {
  const id = useId();
  const inWords = (m: string) => fieldSentence(fieldInWords(path), m);
  return (
    <>
      <FieldMessages id={id} messages={messagesAt(draft, path).map(inWords)} />
      <FieldMessages
        id={`${id}-w`}
        messages={messagesAt(draft, path, 'warnings').map(inWords)}
        tone="warning"
      />
    </>
  );
}

function ActionRow({
  draft,
  path,
  index,
  count,
}: {
  draft: Draft;
  path: JsonPath;
  index: number;
  count: number;
}) {
  const action = getIn(draft.value, path);
  const listPath = path.slice(0, -1);
  return (
    <li className="action" data-testid="action" data-path={pathKey(path)}>
      <div className="action-row">
        <div className="action-fields">
          <span className="ordinal">{index + 1}.</span>
          <TypeSelect<ActionType>
            draft={draft}
            path={[...path, 'type']}
            label="Action"
            types={actionChoices()}
            onChoose={(type) => draft.set(path, withActionType(action, type))}
          />
          {actionFieldsShown(action).map((field) =>
            ACTION_FIELDS[field].input === 'bytes' && isAllowedActionField(action, field) ? (
              <DraftBytesInput
                key={field}
                draft={draft}
                path={[...path, field]}
                label={actionFieldLabel(field)}
              />
            ) : (
              <DraftInput
                key={field}
                draft={draft}
                path={[...path, field]}
                label={actionFieldLabel(field)}
                numeric={ACTION_FIELDS[field].input === 'number'}
                removable={!isAllowedActionField(action, field)}
              />
            ),
          )}
        </div>
        <ItemControls
          draft={draft}
          listPath={listPath}
          index={index}
          count={count}
          what={`action ${index + 1}`}
        />
      </div>
      <ObjectMessages draft={draft} path={path} />
    </li>
  );
}

function ScenarioCard({ draft, index, count }: { draft: Draft; index: number; count: number }) {
  const path: JsonPath = ['scenarios', index];
  const scenario = getIn(draft.value, path);
  const trigger = getIn(scenario, ['trigger']);
  const actions = getIn(scenario, ['actions']);
  const id = getIn(scenario, ['id']);
  const actionsPath: JsonPath = [...path, 'actions'];

  let body: ReactNode;
  if (!isObject(scenario)) {
    body = <p className="note">This scenario is not an object; fix it in the JSON view.</p>;
  } else {
    body = (
      <>
        <div className="trigger-fields">
          <TypeSelect<TriggerType>
            draft={draft}
            path={[...path, 'trigger', 'type']}
            label="Trigger"
            types={TRIGGER_CHOICES}
            onChoose={(type) => draft.set([...path, 'trigger'], withTriggerType(trigger, type))}
          />
          {triggerFieldsShown(trigger).map((field) => (
            <DraftInput
              key={field}
              draft={draft}
              path={[...path, 'trigger', field]}
              label={TRIGGER_LABELS[field]}
              removable={!isAllowedTriggerField(trigger, field)}
            />
          ))}
        </div>
        <ObjectMessages draft={draft} path={[...path, 'trigger']} />
        <ObjectMessages draft={draft} path={actionsPath} />
        {Array.isArray(actions) && actions.length > 0 ? (
          <ol className="actions-list">
            {actions.map((_, j) => (
              <ActionRow
                key={j}
                draft={draft}
                path={[...actionsPath, j]}
                index={j}
                count={actions.length}
              />
            ))}
          </ol>
        ) : (
          Array.isArray(actions) &&
          getIn(trigger, ['type']) === 'BLE_NOTIFICATION' && (
            <p className="note small">No actions: the scenario only collects notification data.</p>
          )
        )}
        <div className="add-row">
          Add action:
          {actionChoices().map(({ value, label }) => (
            <button
              key={value}
              type="button"
              onClick={() =>
                draft.set(
                  [...actionsPath, Array.isArray(actions) ? actions.length : 0],
                  newAction(value),
                )
              }
            >
              + {label}
            </button>
          ))}
        </div>
      </>
    );
  }

  return (
    <li className="scenario" data-testid="scenario" data-path={pathKey(path)}>
      <header className="scenario-header">
        <h3>Scenario {index + 1}</h3>
        {typeof id === 'string' && (
          <span className="muted">
            id <code className="mono">{id}</code>
          </span>
        )}
        <ItemControls
          draft={draft}
          listPath={['scenarios']}
          index={index}
          count={count}
          what={`scenario ${index + 1}`}
        />
      </header>
      <ObjectMessages draft={draft} path={path} />
      <ObjectMessages draft={draft} path={[...path, 'id']} />
      {body}
    </li>
  );
}

export function ScenarioForm({ draft }: { draft: Draft }) {
  const autoCloseId = useId();
  if (!isObject(draft.value)) {
    return (
      <p className="note" data-testid="form-unavailable">
        The draft is not a JSON object, so the form cannot show it. Fix it in the JSON view.
      </p>
    );
  }
  const scenarios = draft.value.scenarios;
  const autoClose = draft.value.autoClose;

  return (
    <div className="scenario-form" data-testid="scenario-form">
      <div className="set-fields">
        <div className="field checkbox">
          <input
            id={autoCloseId}
            type="checkbox"
            checked={autoClose === true}
            data-path="autoClose"
            onChange={(event) => draft.set(['autoClose'], event.target.checked)}
          />
          <label htmlFor={autoCloseId}>autoClose — disconnect after any scenario finishes</label>
          <ObjectMessages draft={draft} path={['autoClose']} />
        </div>
        <DraftInput
          draft={draft}
          path={['suppressionInterval']}
          label="Suppression interval (ms)"
          numeric
        />
      </div>
      <ObjectMessages draft={draft} path={['scenarios']} />
      {Array.isArray(scenarios) ? (
        <>
          {scenarios.length === 0 ? (
            <p className="note empty">No scenarios yet.</p>
          ) : (
            <ol className="scenarios">
              {scenarios.map((_, i) => (
                <ScenarioCard key={i} draft={draft} index={i} count={scenarios.length} />
              ))}
            </ol>
          )}
          <button
            type="button"
            onClick={() => draft.set(['scenarios', scenarios.length], newScenario())}
          >
            + Add scenario
          </button>
        </>
      ) : (
        <p className="note">scenarios is not a list; fix it in the JSON view.</p>
      )}
    </div>
  );
}
