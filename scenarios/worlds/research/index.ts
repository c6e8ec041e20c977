export { RESEARCH_REFERENCE_DATE, generateResearchData } from './data.js';
export type { Question, ResearchData, Source, SourceClaim, SourceKind, Stance } from './data.js';
export * from './schemas.js';
export { ResearchWorld, answerIdentity } from './world.js';
export type { AnswerRecord, ResearchState, ResearchWorldOptions, SourceRecord } from './world.js';
