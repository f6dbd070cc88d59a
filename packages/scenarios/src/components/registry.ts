import { nginx } from "./balancer";
import { haproxy } from "./haproxy";
import { cache } from "./cache";
import { cassandra } from "./cassandra";
import { consumer, logs } from "./downstream";
import { loadgen } from "../loadgen/component";
import { kafka } from "./kafka";
import { postgres } from "./postgres";
import { service } from "./service";
import type { TRunCreate } from "../contract/run";
import type { ComponentModule, FigureInput } from "./types";

/** Every component kind. A new kind is one module in this folder, listed here, plus its image context. */
export const COMPONENTS: readonly ComponentModule[] = [postgres, cassandra, kafka, cache, service, logs, consumer, nginx, haproxy, loadgen];

/** Every component's figures for one second, merged. */
export function componentFigures(input: FigureInput, run: TRunCreate): Record<string, number> {
  return Object.assign({}, ...COMPONENTS.map((c) => c.figures?.(input, run) ?? {}));
}
