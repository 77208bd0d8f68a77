public enum RocketFlowPlaceholder {}
