/**
 * Recordings: cassettes of tool outputs, HTTP calls and model replies, recorded from live
 * servers and replayed deterministically, with the first divergence reported when an agent
 * leaves the recorded path.
 */
export {
  CASSETTE_FORMAT,
  CASSETTE_VERSION,
  CASSETTE_VERSIONS,
  cassetteSchema,
  createCassette,
  formatCassette,
  loadCassette,
  parseCassette,
  redactCassette,
  saveCassette,
  type Cassette,
  type CassetteInput,
  type CassetteSession,
  type CassetteSource,
  type HttpBody,
  type HttpInteraction,
  type Interaction,
  type InteractionDraft,
  type ModelInteraction,
  type RecordedResult,
  type RecordedTool,
  type ToolInteraction,
} from './cassette.js';
export {
  RECORDING_INDEX_FILE,
  RECORDING_INDEX_FORMAT,
  RECORDING_INDEX_VERSION,
  recordingIndexSchema,
  type IndexedSession,
  type RecordingIndex,
} from './recording-index.js';
export {
  checkRecordedSession,
  readRecordingIndex,
  recordingFile,
  SessionExistsError,
  writeRecordedSession,
  type WrittenSession,
} from './record-session.js';
export { DEFAULT_REDACTION, REDACTED, redact, redactUrl, type RedactOptions } from './redact.js';
export { InteractionLog } from './interaction-log.js';
export { RecordingTransport, type RecordingTransportOptions } from './recording-transport.js';
export { recordMcp, type McpTarget, type RecordMcpOptions } from './record-mcp.js';
export { createRecordingFetch, recordHttp, type RecordHttpOptions } from './record-http.js';
export {
  createReplayServer,
  DIVERGENCE_META,
  type Divergence,
  type Replay,
  type ReplayCall,
  type ReplayOptions,
} from './replay-server.js';
export {
  plannerRequest,
  recordingPlanner,
  ReplayPlanner,
  type PlannerDivergence,
} from './model-replay.js';
export {
  checkModelCassettes,
  MODEL_CASSETTE_FORMAT,
  MODEL_CASSETTE_VERSION,
  modelCassettePath,
  modelCassetteSchema,
  parseModelCassette,
  readModelCassette,
  type ModelCassette,
  type RecordedModelCall,
} from './model-cassette.js';
export { recordModelMiddleware, type RecordModelOptions } from './record-model.js';
export {
  ModelReplayMissError,
  ReplayModel,
  type ModelReplayMissData,
  type ReplayModelOptions,
} from './replay-model.js';
export { messageDeltas, type MessageDelta } from './message-delta.js';
export { RecordingProxy } from './recording-proxy.js';
