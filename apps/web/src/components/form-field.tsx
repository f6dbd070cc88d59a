"use client";

import type { FormFieldSpec } from "@scalelab/scenarios/components";
import type { FieldInfo } from "@scalelab/scenarios/contract";
import { KIND_FIELDS } from "@scalelab/scenarios/contract";
import { createContext, useContext, useRef, type ChangeEvent, type ReactNode } from "react";
import { get, useFormContext, useFormState, type UseFormRegisterReturn } from "react-hook-form";
import { formatBytes } from "~/lib/format";
import {
  depsOf,
  fieldHint,
  fieldId,
  infoOf,
  kindChanges,
  numberFromInput,
  withHost,
  type FieldSpec,
  type HostBounds,
  type RunFormValues,
} from "~/lib/run-form";

/** What the run form's fields read beside their own value: the host's bounds (for their ranges) and the values on screen. */
export const RunFormHost = createContext<{ host?: HostBounds; values?: RunFormValues }>({});

/**
 * Where a control's value lives: react-hook-form (the run form registers each field; numbers are
 * read with `setValueAs`) or the caller's state, as typed (the experiment form, the preset card).
 */
export type Binding =
  | { register: (options: { setValueAs?: (value: unknown) => unknown }) => UseFormRegisterReturn }
  | { value: string; onChange: (text: string) => void };

type ErrorAttrs = { testId: string; data?: Record<`data-${string}`, string> };

/** The DOM id of a field's i-th error (`<id>-error` for the first, which is all the run form shows). */
const errorId = (id: string, i: number) => (i === 0 ? `${id}-error` : `${id}-error-${i}`);

/** The field's errors, each an alert with its id for the control's aria-describedby. */
function FieldErrors({ id, errors, attrs }: { id: string; errors: readonly string[]; attrs: ErrorAttrs }) {
  return errors.map((message, i) => (
    <div key={`${i}:${message}`} className="field-error" id={errorId(id, i)} data-testid={attrs.testId} {...attrs.data} role="alert">
      {message}
    </div>
  ));
}

/** A field's frame: its label, its control (`children`), then its errors or else its hint. */
export function FieldFrame(props: {
  /** The control's DOM id. */
  id: string;
  label: string;
  /** A group of controls (radios) is named by its label's id rather than labelled by `for`. */
  group?: boolean;
  wide?: boolean;
  hint?: ReactNode;
  errors: readonly string[];
  errorAttrs: ErrorAttrs;
  children: ReactNode;
}) {
  const invalid = props.errors.length > 0;
  return (
    <div className={`field${props.wide ? " wide" : ""}${invalid ? " invalid" : ""}`}>
      {props.group ? (
        <span className="label" id={props.id}>
          {props.label}
        </span>
      ) : (
        <label htmlFor={props.id}>{props.label}</label>
      )}
      {props.children}
      {invalid ? (
        <FieldErrors id={props.id} errors={props.errors} attrs={props.errorAttrs} />
      ) : props.hint ? (
        <div className="hint" id={`${props.id}-hint`}>
          {props.hint}
        </div>
      ) : null}
    </div>
  );
}

export type SchemaFieldProps = {
  /** The field's control, range and default, read from its schema (`fieldInfo`). */
  info: FieldInfo;
  /** The control's DOM id; its hint and errors are `<id>-hint`, `<id>-error`. */
  id: string;
  /** data-testid of the control, of each error (with data-* attributes) and of an enum's radio buttons. */
  testIds: { control: string; error: string; errorData?: Record<`data-${string}`, string>; option?: (value: string) => string };
  label: string;
  /** Shown after the schema's range ("1–16 · …"). */
  hint?: string;
  /** Defaults to the schema's default. */
  placeholder?: string;
  /** Labels of an enum's values (the value itself when missing). */
  options?: Record<string, string>;
  /** Only the values in `options` are offered. */
  subset?: true;
  /** An enum shown as a row of buttons rather than a select. */
  segmented?: true;
  /** A text shown as a textarea. */
  textarea?: FormFieldSpec["textarea"];
  wide?: true;
  errors: readonly string[];
  bind: Binding;
  /** Controls after the field's own (a button that loads a file into it). */
  extra?: ReactNode;
};

/**
 * One field drawn from its schema: a number input with the schema's bounds and step, a select
 * (or buttons) of the enum's values, a checkbox, or a text input of the schema's length; its hint
 * starts with the schema's range. The run form, the experiment form and the preset card use it.
 */
export function SchemaField(props: SchemaFieldProps) {
  const hint = fieldHint(props.info, props.hint);
  const errorIds = props.errors.map((_, i) => errorId(props.id, i));
  const described = errorIds.length > 0 ? errorIds.join(" ") : hint ? `${props.id}-hint` : undefined;
  return (
    <FieldFrame
      id={props.id}
      label={props.label}
      group={props.segmented && props.info.kind === "enum"}
      wide={props.wide}
      hint={hint}
      errors={props.errors}
      errorAttrs={{ testId: props.testIds.error, data: props.testIds.errorData }}
    >
      <Control {...props} aria={{ "aria-invalid": props.errors.length > 0 || undefined, "aria-describedby": described }} />
      {props.extra}
    </FieldFrame>
  );
}

type Aria = { "aria-invalid": true | undefined; "aria-describedby": string | undefined };
type Changed = ChangeEvent<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>;

/** A value control's props for the binding: react-hook-form's registration, or the state's value and setter. */
function bound(bind: Binding, number: boolean) {
  if ("register" in bind) return bind.register(number ? { setValueAs: numberFromInput } : {});
  return { value: bind.value, onChange: (e: Changed) => bind.onChange(e.target.value) };
}

function Control({
  info,
  id,
  testIds,
  placeholder: given,
  options: labels,
  subset,
  segmented,
  textarea,
  bind,
  aria,
}: SchemaFieldProps & { aria: Aria }) {
  if (info.kind === "enum") {
    const label = (value: string) => labels?.[value] ?? value;
    const options = subset ? info.options.filter((value) => labels !== undefined && Object.hasOwn(labels, value)) : info.options;
    if (segmented) {
      const radio = (value: string) =>
        "register" in bind
          ? { value, ...bind.register({}) }
          : { value, name: id, checked: bind.value === value, onChange: () => bind.onChange(value) };
      return (
        <div className="segmented" role="radiogroup" aria-labelledby={id}>
          {options.map((value) => (
            <label key={value} data-testid={testIds.option?.(value)}>
              <input type="radio" {...radio(value)} />
              {label(value)}
            </label>
          ))}
        </div>
      );
    }
    return (
      <select id={id} data-testid={testIds.control} {...aria} {...bound(bind, false)}>
        {options.map((value) => (
          <option key={value} value={value}>
            {label(value)}
          </option>
        ))}
      </select>
    );
  }

  const placeholder = given ?? (info.default !== undefined ? String(info.default) : undefined);
  if (info.kind === "boolean") {
    const control =
      "register" in bind
        ? bind.register({})
        : { checked: bind.value === "true", onChange: (e: ChangeEvent<HTMLInputElement>) => bind.onChange(String(e.target.checked)) };
    return <input id={id} data-testid={testIds.control} type="checkbox" {...aria} {...control} />;
  }
  if (info.kind === "number") {
    return (
      <input
        id={id}
        data-testid={testIds.control}
        type="number"
        inputMode={info.int ? "numeric" : "decimal"}
        min={info.min ?? undefined}
        max={info.max ?? undefined}
        step={info.int ? 1 : (info.min ?? "any")}
        placeholder={placeholder}
        {...aria}
        {...bound(bind, true)}
      />
    );
  }
  if (textarea) {
    return (
      <textarea
        id={id}
        data-testid={testIds.control}
        rows={textarea.rows}
        spellCheck={textarea.code ? false : undefined}
        autoCapitalize={textarea.code ? "off" : undefined}
        autoCorrect={textarea.code ? "off" : undefined}
        maxLength={info.maxLength ?? undefined}
        placeholder={placeholder}
        {...aria}
        {...bound(bind, false)}
      />
    );
  }
  return (
    <input
      id={id}
      data-testid={testIds.control}
      type="text"
      maxLength={info.maxLength ?? undefined}
      placeholder={placeholder}
      {...aria}
      {...bound(bind, false)}
    />
  );
}

/**
 * A "Load file…" button that reads a local file into a text field (a schema script, a k6 script),
 * refusing one larger than the field takes before reading it.
 */
function LoadFile({ spec, id, load }: { spec: FieldSpec; id: string; load: { accept: string; maxBytes: number } }) {
  const { setValue, setError } = useFormContext<RunFormValues>();
  const input = useRef<HTMLInputElement>(null);
  const read = async (file: File | undefined) => {
    if (!file) return;
    if (file.size > load.maxBytes) {
      setError(spec.path, {
        type: "file",
        message: `${file.name} is ${formatBytes(file.size)}: ${spec.label} takes at most ${formatBytes(load.maxBytes)}`,
      });
      return;
    }
    setValue(spec.path, await file.text(), { shouldDirty: true, shouldValidate: true });
  };
  return (
    <div style={{ display: "flex", gap: 8, alignItems: "center" }}>
      <button type="button" className="btn" data-testid={`load-${id}`} onClick={() => input.current?.click()}>
        Load file…
      </button>
      <input
        ref={input}
        type="file"
        hidden
        accept={load.accept}
        aria-label={`Load a file into ${spec.label}`}
        data-testid={`file-${id}`}
        onChange={(e) => {
          void read(e.target.files?.[0]);
          // The same file again is a change too (it may have been edited).
          e.target.value = "";
        }}
      />
    </div>
  );
}

/** One field of the run form (a line of SECTIONS), bound to react-hook-form. */
export function FormField({ spec }: { spec: FieldSpec }) {
  const { errors } = useFormState<RunFormValues>({ name: spec.path });
  const { register, getValues, setValue } = useFormContext<RunFormValues>();
  const { host, values } = useContext(RunFormHost);
  const id = fieldId(spec);
  const deps = depsOf(spec);
  const error = (get(errors, spec.path) as { message?: string } | undefined)?.message;
  // A new kind takes its own defaults in the fields that depend on it (registered onChange: the user's pick, not a value set by code).
  const onChange = KIND_FIELDS.includes(spec.path)
    ? () => {
        for (const c of kindChanges(spec.path, getValues()))
          setValue(c.path, c.value as never, { shouldDirty: true, shouldValidate: true });
      }
    : undefined;
  return (
    <SchemaField
      info={withHost(spec.path, infoOf(spec.path), host, values)}
      id={`f-${id}`}
      testIds={{ control: `field-${id}`, error: `error-${id}`, option: (value) => `${id}-${value}` }}
      label={spec.label}
      hint={spec.hint}
      placeholder={spec.placeholder}
      options={spec.options}
      subset={spec.subset}
      segmented={spec.segmented}
      textarea={spec.textarea}
      wide={spec.wide}
      errors={error ? [error] : []}
      bind={{ register: (options) => register(spec.path, { deps, onChange, ...options }) }}
      extra={spec.textarea?.load && <LoadFile spec={spec} id={id} load={spec.textarea.load} />}
    />
  );
}
