// The Outbox module: the on-device queue that gets a PreparedPhoto to the engine.
import ImagePrep
