import { ExperimentList } from "~/components/experiment-list";

export default function ExperimentsPage() {
  return <ExperimentList />;
}
