import Foundation
import Testing

@Suite("rocket alert")
struct AlertCLITests {
    let actions = ["--action", "Delete:destructive", "--action", "Keep", "--action", "Cancel:cancel", "--action", "Archive:disabled"]

    @Test("Plain mode: title, message, numbered actions in state order; a number or a title chooses")
    func plain() throws {
        let r = try runRocket(["alert", "--title", "Delete item?", "--message", "This cannot be undone."] + actions, stdin: "keep\n")
        #expect(r.status == 0)
        // Line mode: the prompt goes to stderr, only the result to stdout.
        #expect(r.stderr == "Delete item?\nThis cannot be undone.\n[1] Delete (destructive)\n[2] Keep\n[3] Cancel (cancel)\n[4] Archive (unavailable)\n")
        #expect(r.stdout == "Keep\n")
        let json = try runRocket(["alert", "--json"] + actions, stdin: "1\n")
        #expect(json.stdout.hasSuffix(#"{"index":0,"title":"Delete","style":"destructive"}"# + "\n"))
    }

    @Test("Invalid or disabled choices say why on stderr and read again; end of input exits 1")
    func refusals() throws {
        let r = try runRocket(["alert"] + actions, stdin: "9\narchive\n3\n")
        #expect(r.status == 1 && r.stdout == "Cancel\n")  // the cancel action prints and exits 1: `&&` is safe
        #expect(r.stderr.hasSuffix("Not a choice: \"9\" — Choose 1-4 or type a title:\n\"Archive\" is not available now.\n"))
        let eof = try runRocket(["alert"] + actions, stdin: "")
        #expect(eof.status == 1)
    }

    @Test("An action whose last part is a typo of a style keeps it in its title, and says so with the spec meant")
    func styleTypo() throws {
        let r = try runRocket(["alert", "--action", "Delete:destrutive", "--action", "Ratio 1:2", "--action", "Keep:cancel:disbled"], stdin: "2\n")
        #expect(r.status == 0 && r.stdout == "Ratio 1:2\n")
        #expect(
            r.stderr.hasPrefix(
                "rocket alert: warning: '--action Delete:destrutive': 'destrutive' is no style, so it is part of the title; did you mean 'Delete:destructive'?\n"
                    + "rocket alert: warning: '--action Keep:cancel:disbled': 'disbled' is no style, so it is part of the title; did you mean 'Keep:cancel:disabled'?\n"
            ), "\(r.stderr)")
        #expect(r.stderr.contains("[1] Delete:destrutive\n"), "the title is as given: \(r.stderr)")
    }

    @Test("An unknown ROCKET_THEME is ignored and said; an unknown --theme is a usage error")
    func unknownTheme() throws {
        let env = try runRocket(["confirm", "Go?"], stdin: "1\n", environment: ["ROCKET_THEME": "drak"])
        #expect(env.status == 0 && env.stderr.hasPrefix("rocket: warning: ROCKET_THEME=drak is not auto, dark, light or none; it is ignored\n"))
        #expect(try runRocket(["confirm", "Go?"], stdin: "1\n", environment: ["ROCKET_THEME": "dark"]).stderr == "Go?\n[1] Yes  [2] No\nyou: Yes\n")
        #expect(try runRocket(["confirm", "Go?", "--theme", "drak"]).status == 64)
        // An on/off variable set to neither: ignored, and said once, whatever the command.
        let plain = try runRocket(["confirm", "Go?"], stdin: "1\n", environment: ["ROCKET_PLAIN": "maybe"])
        #expect(
            plain.status == 0
                && plain.stderr.hasPrefix("rocket: warning: ROCKET_PLAIN=maybe is neither on (1, true, yes) nor off (0, false, no); it is ignored\n"))
        #expect(try runRocket(["confirm", "Go?"], stdin: "1\n", environment: ["ROCKET_PLAIN": "yes"]).stderr == "Go?\n[1] Yes  [2] No\nyou: Yes\n")
    }

    @Test(
        "Usage errors exit 64",
        arguments: [
            ["alert"], ["alert", "--action", "a:cancel", "--action", "b:cancel"], ["alert", "--action", "a:disabled"],
            ["alert", "--action", "a:cancel:cancel"], ["alert", "--action", ":cancel"], ["alert", "--action", "a:disabled:disabled"],
        ])
    func usage(args: [String]) throws {
        let r = try runRocket(args)
        #expect(r.status == 64 && r.stderr.hasPrefix("rocket: error: "))
    }

    @Test("In a terminal: focus starts on a safe action; arrows skip disabled ones; Esc chooses cancel (exit 1)")
    func tty() throws {
        let run = try PTYRun(["alert", "--title", "Delete item?"] + actions)
        #expect(run.waitFor("Delete item?"))
        run.send("\r")  // one Enter never deletes: focus starts on Keep
        #expect(run.waitForExit() == 0)
        #expect(String(decoding: run.raw, as: UTF8.self).contains("Keep\r\n"))
        #expect(run.terminalRestored)
        let down = try PTYRun(["alert", "--title", "Delete item?"] + actions)
        #expect(down.waitFor("Delete item?"))
        down.send("\u{1B}[B\r")  // Keep → (Archive is disabled) → Cancel
        #expect(down.waitForExit() == 1)
        #expect(String(decoding: down.raw, as: UTF8.self).contains("Cancel\r\n"))
        let esc = try PTYRun(["alert", "--sheet", "--action", "Only"])
        #expect(esc.waitFor("Only"))
        esc.send([0x1B])
        #expect(esc.waitForExit() == 1)
    }

    @Test("Titles may contain colons: only known words after the last colons are the style")
    func colons() throws {
        let r = try runRocket(["alert", "--action", "Time: 5:00", "--action", "Re: lunch:cancel", "--plain"], stdin: "1\n")
        #expect(r.status == 0 && r.stdout == "Time: 5:00\n", "\(r.stdout)")
        #expect(r.stderr.contains("[2] Re: lunch (cancel)"))
        let json = try runRocket(["alert", "--action", "Delete:destructive", "--action", "Keep", "--json"], stdin: "2\n")
        #expect(json.stdout.hasSuffix(#"{"index":1,"title":"Keep","style":"default"}"# + "\n"))
    }
}
