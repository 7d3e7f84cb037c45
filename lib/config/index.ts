export { parseConfig, loadConfig, ConfigError } from "./load";
export { parseDuration, formatDuration } from "./duration";
export type {
  DriftwatchConfig,
  EnvironmentConfig,
  RepositoryConfig,
  CredentialConfig,
  IgnoreRuleConfig,
  ClusterConfig,
  ControllerConfig,
  SourceConfig,
  ApplicationEnvironment,
} from "./schema";
export { getConfig, resetConfigCache } from "./current";
export { controllerKindOf, type ControllerKind } from "./controller-kind";
