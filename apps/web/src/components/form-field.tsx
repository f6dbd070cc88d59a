"use client";

import type { FieldInfo } from "@scalelab/scenarios/contract";
import { get, useFormContext, useFormState } from "react-hook-form";
import { depsOf, fieldId, infoOf, numberFromInput, rangeOf, type FieldSpec, type RunFormValues } from "~/lib/run-form";

/** One field of the run form: its control (from the schema's type), then its error or its range and hint. */
export function FormField({ spec }: { spec: FieldSpec }) {
  const { errors } = useFormState<RunFormValues>({ name: spec.path });
  const info = infoOf(spec.path);
  const id = fieldId(spec);
  const error = (get(errors, spec.path) as { message?: string } | undefined)?.message;
  const hint = [rangeOf(info), spec.hint].filter(Boolean).join(" · ");
  const described = error ? `f-${id}-error` : hint ? `f-${id}-hint` : undefined;
  return (
    <div className={`field${spec.wide ? " wide" : ""}${error ? " invalid" : ""}`}>
      {spec.segmented ? (
        <span className="label" id={`f-${id}`}>
          {spec.label}
        </span>
      ) : (
        <label htmlFor={`f-${id}`}>{spec.label}</label>
      )}
      <Control spec={spec} info={info} id={id} invalid={Boolean(error)} described={described} />
      {error ? (
        <div className="field-error" id={`f-${id}-error`} data-testid={`error-${id}`} role="alert">
          {error}
        </div>
      ) : hint ? (
        <div className="hint" id={`f-${id}-hint`}>
          {hint}
        </div>
      ) : null}
    </div>
  );
}

type ControlProps = { spec: FieldSpec; info: FieldInfo; id: string; invalid: boolean; described: string | undefined };

function Control({ spec, info, id, invalid, described }: ControlProps) {
  const { register } = useFormContext<RunFormValues>();
  const deps = depsOf(spec);
  const aria = { "aria-invalid": invalid || undefined, "aria-describedby": described };

  if (info.kind === "enum") {
    const field = register(spec.path, { deps });
    const label = (value: string) => spec.options?.[value] ?? value;
    const options = spec.subset
      ? info.options.filter((value) => spec.options !== undefined && Object.hasOwn(spec.options, value))
      : info.options;
    if (spec.segmented) {
      return (
        <div className="segmented" role="radiogroup" aria-labelledby={`f-${id}`}>
          {options.map((value) => (
            <label key={value} data-testid={`${id}-${value}`}>
              <input type="radio" value={value} {...field} />
              {label(value)}
            </label>
          ))}
        </div>
      );
    }
    return (
      <select id={`f-${id}`} data-testid={`field-${id}`} {...aria} {...field}>
        {options.map((value) => (
          <option key={value} value={value}>
            {label(value)}
          </option>
        ))}
      </select>
    );
  }

  const placeholder = spec.placeholder ?? (info.default !== undefined ? String(info.default) : undefined);
  if (info.kind === "boolean") {
    return <input id={`f-${id}`} data-testid={`field-${id}`} type="checkbox" {...aria} {...register(spec.path, { deps })} />;
  }
  if (info.kind === "number") {
    return (
      <input
        id={`f-${id}`}
        data-testid={`field-${id}`}
        type="number"
        inputMode="decimal"
        step={info.int ? 1 : (info.min ?? "any")}
        placeholder={placeholder}
        {...aria}
        {...register(spec.path, { deps, setValueAs: numberFromInput })}
      />
    );
  }
  return (
    <input id={`f-${id}`} data-testid={`field-${id}`} type="text" placeholder={placeholder} {...aria} {...register(spec.path, { deps })} />
  );
}
