import { scalelab } from "@scalelab/eslint-config";

export default scalelab({ root: import.meta.dirname });
