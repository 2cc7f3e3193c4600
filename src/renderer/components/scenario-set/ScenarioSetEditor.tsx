// Loads, edits, validates, imports/exports, saves and deletes one product's scenario set.
// A 404 on load means the product has no set yet: the editor starts from an empty draft.
import {
  useCallback,
  useEffect,
  useId,
  useMemo,
  useRef,
  useState,
  type KeyboardEvent,
} from 'react';
import { fieldInWords, fieldSentence } from '../../../core/platform/field-names';
import type { ScenarioSet, TrialProduct } from '../../../core/platform/things/schema';
import type { BoardGatt } from '../../../core/scenario/board-lint';
import { ConfirmDialog } from '../ConfirmDialog';
import { ErrorNotice } from '../ErrorNotice';
import { LoadFailure } from '../LoadFailure';
import { Panel } from '../Panel';
import { useApi } from '../../lib/api-context';
import { isNotFound } from '../../lib/errors';
import { downloadText } from '../../lib/files';
import { formatTime } from '../../lib/format';
import {
  draftFromSet,
  emptyDraft,
  errorsByField,
  formatJson,
  formPaths,
  moveIn,
  parseJsonText,
  setIn,
  validateDraft,
  withoutServerKeys,
  type Json,
  type JsonPath,
  type Validation,
} from '../../lib/scenario-draft';
import { keepUnsavedDraft, unsavedDraft, type UnsavedDraft } from '../../lib/unsaved-drafts';
import { FieldsRevealed, useReveal } from '../../lib/use-fields';
import { useResource } from '../../lib/use-resource';
import { ScenarioForm, type Draft } from './ScenarioForm';
import { ScenarioJson } from './ScenarioJson';
import { useBoardUuidChoices } from '../../lib/use-uuid-choices';
import { shownUuid } from '../../lib/format';

/** Each load gets a fresh number so the draft editor restarts from what was loaded. */
let loads = 0;

/** What the editor holds, for a page that runs it (the Scenarios page's dry run). */
export interface DraftState {
  /** The product whose set this is: a page that changes product ignores the last one's. */
  productId: string;
  validation: Validation;
  saved: ScenarioSet | null;
  dirty: boolean;
}

interface ScenarioSetEditorProps {
  product: TrialProduct;
  /** A board's GATT table to lint the draft against, named in the panel. */
  board?: BoardGatt & { name: string };
  onDraft?: (state: DraftState) => void;
}

export function ScenarioSetEditor({ product, board, onDraft }: ScenarioSetEditorProps) {
  const api = useApi();
  const load = useCallback(async () => {
    try {
      return { set: await api.things.getScenarioSet({ productId: product.id }), load: ++loads };
    } catch (error) {
      if (isNotFound(error)) return { set: null, load: ++loads };
      throw error;
    }
  }, [api, product.id]);
  const loaded = useResource(load);

  return (
    <Panel
      title={
        <>
          Scenario set · {product.name} <code className="mono muted">{product.id}</code>
        </>
      }
      testId="scenario-editor"
    >
      {loaded.error !== undefined ? (
        <LoadFailure error={loaded.error} onRetry={loaded.reload} />
      ) : !loaded.value ? (
        <p className="note" role="status">
          Loading scenario set…
        </p>
      ) : (
        <DraftEditor
          key={loaded.value.load}
          product={product}
          initial={loaded.value.set}
          board={board}
          onDraft={onDraft}
        />
      )}
    </Panel>
  );
}

/** The draft as both views hold it; kept across pages while unsaved. */
type Doc = UnsavedDraft;

function docFrom(value: Json): Doc {
  return { value, text: formatJson(value) };
}

function DraftEditor({
  product,
  initial,
  board,
  onDraft,
}: Omit<ScenarioSetEditorProps, 'product'> & {
  product: TrialProduct;
  initial: ScenarioSet | null;
}) {
  const api = useApi();
  const uuidListId = useId();
  const boardChoices = useBoardUuidChoices(product.id, board);
  const fileInput = useRef<HTMLInputElement>(null);
  const [restored] = useState(() => unsavedDraft(product.id));
  // A draft brought back or loaded shows its problems at once; a fresh one waits for each field.
  const form = useReveal(
    Boolean(restored) || (initial !== null && !validateDraft(draftFromSet(initial)).ok),
  );
  const [saved, setSaved] = useState(initial);
  // The text of what the platform holds (or of the empty draft when it holds nothing).
  const [baseline, setBaseline] = useState(
    () => docFrom(initial ? draftFromSet(initial) : emptyDraft()).text,
  );
  const [doc, setDoc] = useState<Doc>(
    () => restored ?? docFrom(initial ? draftFromSet(initial) : emptyDraft()),
  );
  const [view, setView] = useState<'form' | 'json'>(restored?.syntaxError ? 'json' : 'form');
  const [saving, setSaving] = useState(false);
  const [actionError, setActionError] = useState<unknown>();
  const [notice, setNotice] = useState<string | undefined>(
    restored && 'Your unsaved changes are back; Discard changes returns to the saved set',
  );
  useEffect(() => keepUnsavedDraft(product.id, doc, baseline), [product.id, doc, baseline]);
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  /** Why the last Save saved nothing; said until the draft has no problem left. */
  const [refused, setRefused] = useState<string>();

  const validation: Validation = useMemo(
    () =>
      doc.syntaxError === undefined
        ? validateDraft(doc.value, board)
        : {
            ok: false as const,
            errors: [{ field: '(JSON syntax)', message: `cannot be read: ${doc.syntaxError}` }],
            warnings: [],
          },
    [doc, board],
  );
  const errors = useMemo(() => errorsByField(validation.errors), [validation]);
  const warnings = useMemo(() => errorsByField(validation.warnings), [validation]);
  const unplaced = useMemo(() => {
    const paths = formPaths(doc.value);
    return {
      errors: validation.errors.filter((e) => !paths.has(e.field)),
      warnings: validation.warnings.filter((e) => !paths.has(e.field)),
    };
  }, [doc.value, validation]);
  const dirty = doc.text !== baseline;
  useEffect(
    () => onDraft?.({ productId: product.id, validation, saved, dirty }),
    [onDraft, product.id, validation, saved, dirty],
  );

  const edit = useCallback((next: Json) => {
    setDoc(docFrom(next));
    setNotice(undefined);
  }, []);
  const draft: Draft = useMemo(
    () => ({
      value: doc.value,
      errors,
      warnings,
      uuidListId,
      set: (path: JsonPath, value: Json | undefined) => edit(setIn(doc.value, path, value)),
      move: (path: JsonPath, from: number, to: number) => edit(moveIn(doc.value, path, from, to)),
    }),
    [doc.value, errors, warnings, uuidListId, edit],
  );

  function editText(text: string) {
    const parsed = parseJsonText(text);
    setDoc((prev) =>
      parsed.ok
        ? { value: parsed.value, text }
        : { value: prev.value, text, syntaxError: parsed.message },
    );
    setNotice(undefined);
  }

  async function importFile(file: File) {
    let text: string;
    try {
      text = await file.text();
    } catch (error) {
      setActionError(error);
      return;
    }
    const parsed = parseJsonText(text);
    if (parsed.ok) {
      const value = withoutServerKeys(parsed.value);
      setDoc(docFrom(value));
      if (!validateDraft(value).ok) form.reveal();
    } else {
      setDoc((prev) => ({ value: prev.value, text, syntaxError: parsed.message }));
      setView('json');
    }
    setActionError(undefined);
    setNotice(`Imported ${file.name}`);
  }

  async function save() {
    if (saving) return;
    // Save with problems shows every one of them, says how many and where, and takes the user
    // to the first.
    if (!validation.ok) {
      setRefused(notSavedNotice(validation.errors));
      form.reveal();
      return;
    }
    setSaving(true);
    setActionError(undefined);
    try {
      const result = await api.things.putScenarioSet({
        productId: product.id,
        scenarioSet: validation.input,
      });
      const next = docFrom(draftFromSet(result));
      setSaved(result);
      setDoc(next);
      setBaseline(next.text);
      form.reset();
      setNotice(`Saved revision ${result.revision}`);
    } catch (error) {
      setActionError(error);
    } finally {
      setSaving(false);
    }
  }

  async function deleteSet() {
    await api.things.deleteScenarioSet({ productId: product.id });
    setSaved(null);
    setBaseline(formatJson(emptyDraft()));
    setConfirmingDelete(false);
    setNotice('Scenario set deleted; the draft below is not saved');
  }

  function onKeyDown(event: KeyboardEvent) {
    if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 's') {
      event.preventDefault();
      void save();
    }
  }

  const problemCount = validation.errors.length;
  const warningCount = validation.warnings.length;
  return (
    <div className="draft-editor" onKeyDown={onKeyDown} id={form.id}>
      <div className="editor-status">
        <span data-testid="scenario-revision" className="revision">
          {saved ? (
            <>
              Revision <strong>{saved.revision}</strong> · updated {formatTime(saved.updatedAt)}
            </>
          ) : (
            'No scenario set yet'
          )}
        </span>
        {dirty && <span className="badge warn">unsaved changes</span>}
        {problemCount === 0 ? (
          <span data-testid="validation-summary" className="badge good" aria-live="polite">
            valid
          </span>
        ) : (
          // Problems of fields not yet filled in wait for the field to be left; the badge shows
          // them all and takes the user to the first.
          <button
            type="button"
            data-testid="validation-summary"
            className="badge bad"
            aria-live="polite"
            title="Show every problem and go to the first"
            onClick={() => {
              setView('form');
              form.reveal();
            }}
          >
            {problemCount} problem{problemCount === 1 ? '' : 's'}
          </button>
        )}
        {warningCount > 0 && (
          <span data-testid="warning-summary" className="badge warn">
            {warningCount} warning{warningCount === 1 ? '' : 's'}
          </span>
        )}
        {board && (
          <span className="muted" data-testid="lint-board">
            linted against {board.name} (MTU {board.mtu})
          </span>
        )}
        {notice && (
          <span className="notice" role="status" data-testid="editor-notice">
            {notice}
          </span>
        )}
        {refused && !validation.ok && (
          <span className="bad" role="alert" data-testid="save-refused">
            {refused}
          </span>
        )}
      </div>

      <div className="toolbar">
        <div role="tablist" aria-label="Editor view" className="tabs">
          {(['form', 'json'] as const).map((v) => (
            <button
              key={v}
              type="button"
              role="tab"
              aria-selected={view === v}
              onClick={() => setView(v)}
            >
              {v === 'form' ? 'Form' : 'JSON'}
            </button>
          ))}
        </div>
        <span className="spacer" />
        <button type="button" onClick={() => fileInput.current?.click()}>
          Import…
        </button>
        <input
          ref={fileInput}
          type="file"
          accept=".json,application/json"
          className="offscreen"
          tabIndex={-1}
          data-testid="import-file"
          aria-label="Import scenario set JSON file"
          onChange={(event) => {
            const file = event.target.files?.[0];
            event.target.value = '';
            if (file) void importFile(file);
          }}
        />
        <button
          type="button"
          onClick={() => downloadText(`scenario-set-${product.id}.json`, `${doc.text}\n`)}
        >
          Export
        </button>
        <button
          type="button"
          disabled={!dirty}
          onClick={() => {
            setDoc(docFrom(saved ? draftFromSet(saved) : emptyDraft()));
            setNotice(undefined);
          }}
        >
          Discard changes
        </button>
        <button
          type="button"
          className="danger"
          disabled={!saved}
          onClick={() => setConfirmingDelete(true)}
        >
          Delete set…
        </button>
        <button
          type="button"
          className="primary"
          disabled={saving}
          title={validation.ok ? 'Save (Ctrl+S)' : 'Save (Ctrl+S): shows the problems to fix first'}
          onClick={() => void save()}
        >
          {saving ? 'Saving…' : 'Save'}
        </button>
      </div>

      <ErrorNotice error={actionError} testId="save-error" />

      <datalist id={uuidListId}>
        <option value={product.serviceUuid}>service UUID</option>
        <option value={product.psdiServiceUuid}>PSDI service UUID</option>
        <option value={product.psdiCharacteristicUuid}>PSDI characteristic UUID</option>
        {boardChoices
          .filter(
            (c) =>
              ![product.serviceUuid, product.psdiServiceUuid, product.psdiCharacteristicUuid]
                .map(shownUuid)
                .includes(c.uuid),
          )
          .map((c) => (
            <option key={c.uuid} value={c.uuid} data-testid="board-uuid-choice">
              {c.label}
            </option>
          ))}
      </datalist>

      {view === 'form' ? (
        <div role="tabpanel" aria-label="Form">
          {doc.syntaxError !== undefined ? (
            <p className="note" data-testid="form-unavailable">
              The JSON has a syntax error ({doc.syntaxError}); fix it in the JSON view.
            </p>
          ) : (
            <>
              {unplaced.errors.length > 0 && (
                <ul className="problems" data-testid="form-problems">
                  {unplaced.errors.map((p, i) => (
                    <li key={i} title={p.field}>
                      {fieldSentence(fieldInWords(p.field), p.message)}
                    </li>
                  ))}
                </ul>
              )}
              {unplaced.warnings.length > 0 && (
                <ul className="problems warnings" data-testid="form-warnings">
                  {unplaced.warnings.map((p, i) => (
                    <li key={i} title={p.field}>
                      {fieldSentence(fieldInWords(p.field), p.message)}
                    </li>
                  ))}
                </ul>
              )}
              <FieldsRevealed value={form.revealed}>
                <ScenarioForm draft={draft} />
              </FieldsRevealed>
            </>
          )}
        </div>
      ) : (
        <div role="tabpanel" aria-label="JSON">
          <ScenarioJson
            text={doc.text}
            onChange={editText}
            problems={validation.errors}
            warnings={validation.warnings}
          />
        </div>
      )}

      {confirmingDelete && (
        <ConfirmDialog
          title="Delete scenario set?"
          confirmLabel="Delete scenario set"
          onConfirm={deleteSet}
          onCancel={() => setConfirmingDelete(false)}
        >
          <p>
            The scenario set of <strong>{product.name}</strong> (revision {saved?.revision}) will be
            deleted from the platform. The draft stays in the editor.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}

/** Places named in a "not saved" notice before "and N more". */
const NAMED_PLACES = 3;

/** "Not saved: 3 problems, at Suppression interval, Service UUID (scenario 1, action 1) and …". */
function notSavedNotice(errors: readonly { field: string }[]): string {
  const places = [...new Set(errors.map((e) => fieldInWords(e.field)))];
  const named = places.slice(0, NAMED_PLACES).join(', ');
  const more = places.length > NAMED_PLACES ? ` and ${places.length - NAMED_PLACES} more` : '';
  const n = errors.length;
  return `Not saved: ${n} problem${n === 1 ? '' : 's'}, at ${named}${more}`;
}
