/**
 * The run form's sections and fields as the components declare them. Paths are the run body's
 * dotted paths (`topology.service.replicas`); ranges, defaults and enum values are never written
 * here: the form reads them from the schema (../contract/form.ts). The web types the paths.
 */

/**
 * A field or section is shown while the value at `path` is (or is not) one of the values; `any`
 * holds while one of its alternatives does (an alternative that is a list holds while all of it does).
 */
export type FormCondition =
  { path: string; in: readonly unknown[]; negate?: true } | { any: readonly (FormCondition | readonly FormCondition[])[] };
export const when = (path: string, ...values: unknown[]): FormCondition => ({ path, in: values });
export const unless = (path: string, ...values: unknown[]): FormCondition => ({ path, in: values, negate: true });
export const either = (...alternatives: (FormCondition | readonly FormCondition[])[]): FormCondition => ({ any: alternatives });

export type FormFieldSpec = {
  path: string;
  label: string;
  /** Suffix of the DOM id and the test ids (`field-<id>`, `error-<id>`); the path without `topology.` unless given. */
  id?: string;
  hint?: string;
  placeholder?: string;
  /** Labels of an enum's values (the value itself when missing). */
  options?: Record<string, string>;
  /** Only the values in `options` are offered (an enum whose allowed values depend on another field, e.g. the balancer's kind). */
  subset?: true;
  /** An enum shown as a row of buttons rather than a select. */
  segmented?: true;
  /**
   * A text shown as a textarea of `rows` lines (`code`: monospace, no spell check); `load` adds a
   * button that reads a local file of these types (an `accept` list) into it, refusing one larger than `maxBytes`.
   */
  textarea?: { rows: number; code?: true; load?: { accept: string; maxBytes: number } };
  wide?: true;
  /** Shown while every condition holds. */
  when?: FormCondition | FormCondition[];
  /** Fields whose check depends on this one's value (cross-component rules), besides those it shows or hides. */
  deps?: string[];
};

export type FormSectionSpec = {
  key: string;
  /** Where it stands among the sections (the request path: service 10, balancer 20, downstream 30, broker 40, store 50). */
  order: number;
  title: string;
  hint?: string;
  when?: FormCondition;
  /** The body's object for this section, left out while the section is hidden (the schema refuses it then). */
  object?: string;
  /**
   * The section's object is optional while `when` holds: a checkbox with this label adds it, and
   * while it is off the fields are hidden and the object is left out (a user's image asks for a broker or not).
   */
  optional?: { label: string; when: FormCondition };
  fields: FormFieldSpec[];
};

/**
 * What a component adds to the run form: whole sections (a slot's), fields at the end of a
 * section (a kind's own knobs), and the label of its kind in a kind field's options.
 */
export type ComponentForm = {
  sections?: FormSectionSpec[];
  /** Fields added to a section, after the field at `after` (its path) or at its end. */
  fields?: { section: string; after?: string; fields: FormFieldSpec[] }[];
  options?: { path: string; value: string; label: string }[];
};

/** The sections in order: the components' own, their kinds' fields appended, their kinds' labels in the options. */
export function foldForm(forms: readonly ComponentForm[]): FormSectionSpec[] {
  const sections = forms
    .flatMap((f) => f.sections ?? [])
    .map((s) => ({ ...s, fields: s.fields.map((field) => ({ ...field })) }))
    .sort((a, b) => a.order - b.order);
  for (const { section, after, fields } of forms.flatMap((f) => f.fields ?? [])) {
    const into = sections.find((s) => s.key === section);
    if (!into) throw new Error(`no form section ${section} for fields ${fields.map((f) => f.path).join(", ")}`);
    // After the last field already placed after `after`, so kinds keep the registry's order.
    let at = after === undefined ? into.fields.length : into.fields.findLastIndex((f) => f.path === after) + 1;
    if (after !== undefined && at === 0) throw new Error(`no field ${after} in form section ${section}`);
    while (after !== undefined && at < into.fields.length && into.fields[at]!.path === fields[0]?.path) at += 1;
    into.fields.splice(at, 0, ...fields);
  }
  for (const o of forms.flatMap((f) => f.options ?? [])) {
    const field = sections.flatMap((s) => s.fields).find((f) => f.path === o.path && f.options);
    if (!field) throw new Error(`no form field with options at ${o.path} for ${o.value}`);
    field.options = { ...field.options, [o.value]: o.label };
  }
  return sections;
}
