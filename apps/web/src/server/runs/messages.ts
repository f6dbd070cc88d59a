/** The worker's live messages: one catalog in @scalelab/scenarios, validated by publisher and reader. */
export { parseChannelMessage, ZChannelMessage, type TChannelMessage } from "@scalelab/scenarios/messages";
