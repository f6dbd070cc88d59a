import { RunsList } from "~/components/runs-list";

export default function RunsPage() {
  return <RunsList />;
}
