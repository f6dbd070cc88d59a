import { TFault } from "./faults";
import { TThreshold } from "./thresholds";
import { TTopology } from "./topology";
import { TWorkload } from "./workload";
import { TRegressionSettings } from "./regression";

/**
 * A parsed run definition, as the components, the plan and the load generators take it. It is
 * ZRunCreate's output type (./run.ts checks that the two agree), declared here so that the
 * components can depend on it while ZRunCreate folds over the components' rules.
 */
export type TRunDefinition = {
  name?: string;
  engine: string;
  topology: TTopology;
  workload: TWorkload;
  faults: TFault[];
  thresholds: TThreshold[];
  regression?: TRegressionSettings | undefined;
};
