import type { paths } from "./generated/api";

/** The answers the CLI reads, named; all from the generated types of the OpenAPI document. */
type JsonOf<R> = R extends { content: { "application/json": infer T } } ? T : never;

export type RunView = JsonOf<paths["/runs/{id}"]["get"]["responses"][200]>;
export type RunRef = JsonOf<paths["/runs"]["post"]["responses"][201]>;
export type RunPage = JsonOf<paths["/runs"]["get"]["responses"][200]>;
export type ExperimentView = JsonOf<paths["/experiments/{id}"]["get"]["responses"][200]>;
export type ExperimentRef = JsonOf<paths["/experiments"]["post"]["responses"][201]>;
export type PresetView = JsonOf<paths["/presets"]["get"]["responses"][200]>[number];
export type CompareResult = JsonOf<paths["/compare"]["get"]["responses"][200]>;
export type HostBounds = JsonOf<paths["/host"]["get"]["responses"][200]>;
export type Sample = JsonOf<paths["/runs/{id}/samples"]["get"]["responses"][200]>[number];
export type RunBody = paths["/runs"]["post"]["requestBody"]["content"]["application/json"];
export type ExperimentBody = paths["/experiments"]["post"]["requestBody"]["content"]["application/json"];
export type History = JsonOf<paths["/history"]["get"]["responses"][200]>;
export type TokenView = JsonOf<paths["/tokens"]["get"]["responses"][200]>[number];
export type EngineView = JsonOf<paths["/engines"]["get"]["responses"][200]>[number];
