/// The mutations an action produces: some at once (applied before `send` returns, as RxSwift's
/// synchronous `just`), then an asynchronous tail. A failing tail stops only itself (A7).
///
/// ```swift
/// Mutations.just(.setLoading(true))
/// Mutations.concat(.just(.setActions([.loading])), .run { send in
///     let actions = try await service.fetch()
///     send(.setActions(actions))
/// })
/// ```
public struct Mutations<Mutation: Sendable>: Sendable {
    /// Applied synchronously, in order.
    public var immediate: [Mutation]
    /// Produces the rest, asynchronously; nil when there is none.
    public var tail: (@Sendable (_ send: @escaping @Sendable (Mutation) -> Void) async throws -> Void)?

    /// Mutations from parts.
    public init(immediate: [Mutation] = [], tail: (@Sendable (_ send: @escaping @Sendable (Mutation) -> Void) async throws -> Void)? = nil) {
        self.immediate = immediate
        self.tail = tail
    }

    /// No mutation (the default `mutate`, A5).
    public static var empty: Mutations { Mutations() }
    /// One mutation, at once.
    public static func just(_ m: Mutation) -> Mutations { Mutations(immediate: [m]) }
    /// Several, at once.
    public static func sequence(_ ms: [Mutation]) -> Mutations { Mutations(immediate: ms) }
    /// An asynchronous producer: call `send` for each mutation.
    public static func run(_ body: @escaping @Sendable (_ send: @escaping @Sendable (Mutation) -> Void) async throws -> Void) -> Mutations {
        Mutations(tail: body)
    }

    /// `a` then `b`: `b`'s immediate mutations join `a`'s when `a` has no tail; otherwise they
    /// come after `a`'s tail.
    public static func concat(_ a: Mutations, _ b: Mutations) -> Mutations {
        guard let aTail = a.tail else { return Mutations(immediate: a.immediate + b.immediate, tail: b.tail) }
        let bImmediate = b.immediate, bTail = b.tail
        return Mutations(immediate: a.immediate) { send in
            try await aTail(send)
            for m in bImmediate { send(m) }
            try await bTail?(send)
        }
    }
}

/// ReactorKit's contract in Swift concurrency: typed actions become mutations (`mutate`), which
/// a pure `reduce` folds into state, with `transform` hooks at each stage. A ``ReactorStore``
/// runs it.
///
/// ```swift
/// final class Counter: Reactor {
///     enum Action: Sendable { case increase }
///     enum Mutation: Sendable { case add(Int) }
///     struct State: Sendable, Equatable { var value = 0 }
///     let initialState = State()
///     func mutate(action: Action) -> Mutations<Mutation> { .just(.add(1)) }
///     func reduce(state: State, mutation: Mutation) -> State {
///         var s = state; if case .add(let n) = mutation { s.value += n }; return s
///     }
/// }
/// ```
@MainActor
public protocol Reactor: AnyObject {
    /// What the view sends.
    associatedtype Action: Sendable
    /// What changes the state (by default the actions themselves).
    associatedtype Mutation: Sendable = Action
    /// What the view draws.
    associatedtype State: Sendable

    /// The state before any action.
    var initialState: State { get }
    /// Rewrites each action before `mutate` (identity by default).
    func transform(action: Action) -> Action
    /// The mutations of an action (none by default; the action itself when `Action == Mutation`).
    func mutate(action: Action) -> Mutations<Mutation>
    /// Rewrites each mutation before `reduce` (identity by default).
    func transform(mutation: Mutation) -> Mutation
    /// The new state: pure.
    func reduce(state: State, mutation: Mutation) -> State
    /// Rewrites each state before it is published (identity by default).
    func transform(state: State) -> State
}

extension Reactor {
    public func transform(action: Action) -> Action { action }
    public func mutate(action: Action) -> Mutations<Mutation> { .empty }
    public func transform(mutation: Mutation) -> Mutation { mutation }
    public func reduce(state: State, mutation: Mutation) -> State { state }
    public func transform(state: State) -> State { state }
}

extension Reactor where Action == Mutation {
    public func mutate(action: Action) -> Mutations<Mutation> { .just(action) }
}

/// Runs a ``Reactor``: actions in, state out, on the main actor with synchronous delivery (A8).
///
/// - `currentState` is the latest state; ``states`` gives each subscriber a stream that starts
///   with the current state (a late subscriber sees it) and then every change.
/// - Mutations of concurrent actions interleave (ReactorKit's flatMap, A6).
/// - An action sent while a state is being delivered (from an observer) is queued and runs
///   after, never recursively.
/// - A failing mutation producer stops only itself; the error goes to ``onError`` (A7).
/// - ``cancelAll()`` (and releasing the store) cancels in-flight producers.
/// - With ``isStubEnabled``, actions are only recorded and the state is set by hand (ReactorKit's
///   stub, for testing views).
///
/// ```swift
/// let store = ReactorStore(Counter())
/// store.send(.increase)
/// store.currentState.value   // 1
/// ```
@MainActor
public final class ReactorStore<R: Reactor> {
    /// The reactor.
    public let reactor: R
    /// The latest state.
    public private(set) var currentState: R.State
    /// Called with every error a mutation producer threw.
    public var onError: ((any Error) -> Void)?
    /// Record actions instead of running them; set the state with ``setStubState(_:)``.
    public var isStubEnabled = false
    /// Actions received while stubbed.
    public private(set) var stubActions: [R.Action] = []

    private var subscribers: [Int: AsyncStream<R.State>.Continuation] = [:]
    private var observers: [Int: (R.State) -> Void] = [:]
    private var nextID = 0
    private var tasks: [Int: Task<Void, Never>] = [:]
    private var delivering = false
    private var queued: [R.Action] = []

    /// A store with the reactor's initial state (transformed).
    public init(_ reactor: R) {
        self.reactor = reactor
        self.currentState = reactor.transform(state: reactor.initialState)
    }

    isolated deinit {
        for t in tasks.values { t.cancel() }
        for c in subscribers.values { c.finish() }
    }

    /// A stream of states: the current one first, then each change.
    public var states: AsyncStream<R.State> {
        let (stream, continuation) = AsyncStream<R.State>.makeStream(bufferingPolicy: .unbounded)
        nextID += 1
        let id = nextID
        continuation.yield(currentState)
        subscribers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { @MainActor in self?.subscribers[id] = nil }
        }
        return stream
    }

    /// Calls `observer` now with the current state and synchronously after every change;
    /// returns a token for ``removeObserver(_:)``.
    @discardableResult
    public func observe(_ observer: @escaping (R.State) -> Void) -> Int {
        nextID += 1
        observers[nextID] = observer
        observer(currentState)
        return nextID
    }

    /// Stops an observer.
    public func removeObserver(_ token: Int) { observers[token] = nil }

    /// Sends an action.
    public func send(_ action: R.Action) {
        if isStubEnabled { stubActions.append(action); return }
        if delivering { queued.append(action); return }
        run(action)
        while !delivering, !queued.isEmpty { run(queued.removeFirst()) }
    }

    /// Sets the state by hand while stubbed.
    public func setStubState(_ state: R.State) {
        currentState = state
        publish()
    }

    /// Cancels every in-flight mutation producer.
    public func cancelAll() {
        for t in tasks.values { t.cancel() }
        tasks.removeAll()
    }

    /// How many mutation producers are running.
    public var runningCount: Int { tasks.count }

    private func run(_ action: R.Action) {
        let mutations = reactor.mutate(action: reactor.transform(action: action))
        for m in mutations.immediate { apply(m) }
        guard let tail = mutations.tail else { return }
        nextID += 1
        let id = nextID
        let (stream, continuation) = AsyncStream<ProducerEvent<R.Mutation>>.makeStream(bufferingPolicy: .unbounded)
        let producer = Task.detached {
            do {
                try await tail { continuation.yield(.mutation($0)) }
            } catch {
                if !(error is CancellationError) { continuation.yield(.failure(error)) }
            }
            continuation.finish()
        }
        tasks[id] = Task { [weak self] in
            await withTaskCancellationHandler {
                for await event in stream {
                    guard let self, !Task.isCancelled else { break }
                    switch event {
                    case .mutation(let m): self.apply(m)
                    case .failure(let e): self.onError?(e)
                    }
                }
            } onCancel: {
                producer.cancel()
            }
            self?.tasks[id] = nil
        }
    }

    private func apply(_ mutation: R.Mutation) {
        let m = reactor.transform(mutation: mutation)
        currentState = reactor.transform(state: reactor.reduce(state: currentState, mutation: m))
        publish()
    }

    private func publish() {
        delivering = true
        for c in subscribers.values { c.yield(currentState) }
        for o in observers.values { o(currentState) }
        delivering = false
        while !queued.isEmpty { run(queued.removeFirst()) }
    }
}

/// What a mutation producer reports to its store.
enum ProducerEvent<M: Sendable>: Sendable {
    case mutation(M)
    case failure(any Error)
}
