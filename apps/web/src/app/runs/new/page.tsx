import { NewRunForm } from "~/components/new-run-form";

export default function NewRunPage() {
  return <NewRunForm />;
}
