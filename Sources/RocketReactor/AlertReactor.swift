/// The role of an alert action (UIKit's `UIAlertAction.Style`, neutral).
public enum AlertActionStyle: String, Hashable, Sendable, CaseIterable {
    case `default`, cancel, destructive
}

/// An action an alert offers: a title, a style, and whether it can be chosen now.
///
/// ```swift
/// enum MyAction: AlertActionType {
///     case edit, delete, cancel
///     var title: String { self == .edit ? "Edit" : self == .delete ? "Delete" : "Cancel" }
///     var style: AlertActionStyle { self == .delete ? .destructive : self == .cancel ? .cancel : .default }
/// }
/// ```
public protocol AlertActionType: Equatable, Sendable {
    /// The title.
    var title: String { get }
    /// The style (default `.default`).
    var style: AlertActionStyle { get }
    /// Whether it can be chosen (default true).
    var isEnabled: Bool { get }
}

extension AlertActionType {
    public var style: AlertActionStyle { .default }
    public var isEnabled: Bool { true }
}

/// The actions of an ``AlertReactor``.
public enum AlertReactorAction<A: AlertActionType>: Sendable {
    /// The alert was presented: load what it shows.
    case prepare
    /// The user chose an action.
    case selectAction(A)
}

/// The mutations of an ``AlertReactor``: each replaces one field.
public enum AlertReactorMutation<A: AlertActionType>: Sendable {
    case setTitle(String?)
    case setMessage(String?)
    case setActions([A])
}

/// The state of an ``AlertReactor``.
public struct AlertReactorState<A: AlertActionType>: Sendable, Equatable {
    /// The title (nil: none).
    public var title: String?
    /// The message (nil: none).
    public var message: String?
    /// The actions, in the order they are shown.
    public var actions: [A]

    /// A state.
    public init(title: String? = nil, message: String? = nil, actions: [A] = []) {
        self.title = title
        self.message = message
        self.actions = actions
    }
}

extension AlertReactorState {
    /// The state after `mutation`, which replaces its one field: the reduce step of every
    /// AlertReactor, as a pure function (hosts without a reactor, such as `rocket serve`, use it).
    ///
    /// ```swift
    /// let s = AlertReactorState<MyAction>().applying(.setActions([.edit, .cancel]))
    /// ```
    public func applying(_ mutation: AlertReactorMutation<A>) -> Self {
        var s = self
        switch mutation {
        case .setTitle(let t): s.title = t
        case .setMessage(let m): s.message = m
        case .setActions(let a): s.actions = a
        }
        return s
    }
}

/// AlertReactor: an alert driven as reactive state. Subclass it and override ``mutate(action:)``
/// (the default does nothing, as the original, A5) to load actions lazily:
///
/// ```swift
/// final class ItemAlert: AlertReactor<MyAction> {
///     override func mutate(action: AlertReactorAction<MyAction>) -> Mutations<AlertReactorMutation<MyAction>> {
///         guard case .prepare = action else { return .empty }
///         return .concat(.just(.setActions([.loading, .cancel])), .run { send in
///             let canDelete = try await api.permissions()
///             send(.setActions(canDelete ? [.edit, .delete, .cancel] : [.edit, .cancel]))
///         })
///     }
/// }
/// ```
@MainActor
open class AlertReactor<A: AlertActionType>: Reactor {
    /// `.prepare` and `.selectAction`.
    public typealias Action = AlertReactorAction<A>
    /// `.setTitle`, `.setMessage`, `.setActions`.
    public typealias Mutation = AlertReactorMutation<A>
    /// Title, message and actions.
    public typealias State = AlertReactorState<A>

    /// The state before any action: `(title, message, actions ?? [])`.
    public let initialState: State

    /// Creates the reactor.
    public init(title: String? = nil, message: String? = nil, actions: [A]? = nil) {
        initialState = State(title: title, message: message, actions: actions ?? [])
    }

    /// The override point: the mutations of an action (none by default).
    open func mutate(action: Action) -> Mutations<Mutation> { .empty }

    /// Each mutation replaces its one field (``AlertReactorState/applying(_:)``).
    open func reduce(state: State, mutation: Mutation) -> State { state.applying(mutation) }

    /// Identity; override to rewrite actions.
    open func transform(action: Action) -> Action { action }
    /// Identity; override to rewrite mutations.
    open func transform(mutation: Mutation) -> Mutation { mutation }
    /// Identity; override to rewrite states.
    open func transform(state: State) -> State { state }
}

/// How the alert is presented.
public enum AlertStyle: String, Sendable, CaseIterable {
    /// A centred box.
    case alert
    /// A list at the bottom.
    case actionSheet
}

/// Why an alert's actions cannot be presented (the original let UIKit throw, A4).
public enum AlertProblem: Error, Hashable, Sendable {
    /// More than one cancel action.
    case severalCancelActions([String])
}

/// A presenter-agnostic alert controller: binds an ``AlertReactor`` and exposes what a front end
/// draws — title, message, buttons in the state's order — and what choosing does.
///
/// Choosing an enabled button sends `.selectAction` and, with `dismissOnSelect` (the default,
/// A2), dismisses. The buttons are rebuilt whenever an action changes, `isEnabled` included (the
/// original compared title and style only, A1). At most one cancel action is allowed (A4).
///
/// ```swift
/// let controller = AlertController(reactor: ItemAlert(), style: .actionSheet)
/// controller.present()                   // sends .prepare
/// controller.buttons.map(\.title)        // live as the actions load
/// controller.select(0)
/// ```
@MainActor
public final class AlertController<A: AlertActionType> {
    /// A button as drawn.
    public struct Button: Equatable, Sendable {
        /// The title.
        public var title: String
        /// The style.
        public var style: AlertActionStyle
        /// Whether it can be chosen.
        public var isEnabled: Bool
        /// The typed action it sends.
        public var action: A
    }

    /// The store running the reactor.
    public let store: ReactorStore<AlertReactor<A>>
    /// The presentation style.
    public let style: AlertStyle
    /// Dismiss when an action is chosen (default true).
    public var dismissOnSelect: Bool
    /// The title.
    public private(set) var title: String?
    /// The message.
    public private(set) var message: String?
    /// The buttons, in the state's order.
    public private(set) var buttons: [Button] = []
    /// Set when the actions cannot be presented.
    public private(set) var problem: AlertProblem?
    /// True once presented.
    public private(set) var isPresented = false
    /// True once dismissed.
    public private(set) var isDismissed = false
    /// The chosen action, once one was chosen.
    public private(set) var selected: A?
    /// Called when anything drawn changes.
    public var onChange: (() -> Void)?
    /// How many times the buttons were rebuilt (a binder that rebuilds only on change).
    public private(set) var buttonRebuilds = 0

    /// Binds a reactor; title, message and buttons come from its current state at once.
    public init(reactor: AlertReactor<A>, style: AlertStyle = .alert, dismissOnSelect: Bool = true) {
        self.store = ReactorStore(reactor)
        self.style = style
        self.dismissOnSelect = dismissOnSelect
        store.observe { [weak self] state in self?.bind(state) }
    }

    private func bind(_ state: AlertReactorState<A>) {
        var changed = false
        if title != state.title { title = state.title; changed = true }
        if message != state.message { message = state.message; changed = true }
        let newButtons = state.actions.map { Button(title: $0.title, style: $0.style, isEnabled: $0.isEnabled, action: $0) }
        if newButtons != buttons && !(newButtons.isEmpty && buttons.isEmpty) {
            buttons = newButtons
            buttonRebuilds += 1
            changed = true
        }
        let cancels = buttons.filter { $0.style == .cancel }.map(\.title)
        problem = cancels.count > 1 ? .severalCancelActions(cancels) : nil
        if changed { onChange?() }
    }

    /// Presents: sends `.prepare` once.
    public func present() {
        guard !isPresented else { return }
        isPresented = true
        store.send(.prepare)
    }

    /// Chooses the button at `index`; false when it does not exist, is disabled, or the alert is
    /// dismissed.
    @discardableResult
    public func select(_ index: Int) -> Bool {
        guard !isDismissed, buttons.indices.contains(index), buttons[index].isEnabled else { return false }
        let action = buttons[index].action
        selected = action
        if dismissOnSelect { isDismissed = true }
        store.send(.selectAction(action))
        onChange?()
        return true
    }

    /// The index of the cancel button, if any.
    public var cancelIndex: Int? { buttons.firstIndex { $0.style == .cancel } }

    /// Dismisses without a choice (the in-flight work is cancelled, A3).
    public func dismiss() {
        isDismissed = true
        store.cancelAll()
        onChange?()
    }
}
