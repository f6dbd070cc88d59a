import { PresetList } from "~/components/preset-list";

export default function PresetsPage() {
  return <PresetList />;
}
