import Aggregator

/// The dashboard's one script, served as `/dashboard.js` (a file of this binary, never of the disk): it
/// asks `/api/status` every `--refresh` seconds (the browser revalidates with the ETag: an unchanged merge
/// costs a 304) and redraws the live part in place, by the rules of `LiveText`. Text from records goes in
/// with `textContent` only, never as markup.
enum DashboardScript {
    static let source: String = {
        let names = ProviderNames.known.keys.sorted().map { "\"\($0)\":\"\(ProviderNames.known[$0] ?? $0)\"" }
            .joined(separator: ",")
        return """
            "use strict";
            (function () {
              const names = {\(names)};
              const body = document.body;
              const refresh = Math.max(1, Number(body.dataset.refresh) || 60) * 1000;
              const tokenRequired = body.dataset.token === "required";
              const state = document.getElementById("state");
              const form = document.getElementById("token");
              let token = tokenRequired ? sessionStorage.getItem("aggctl-token") : null;
              let timer = null;
              window.aggctlDashboard = { updates: 0, lastError: null };

              // Own names only: a provider called "constructor" is not Object's.
              function displayName(id) {
                return Object.hasOwn(names, id) ? names[id] : id.charAt(0).toUpperCase() + id.slice(1);
              }
              // Twins of LiveText's rules (HumanFormat.percent, DurationText.short, HumanFormat.pace).
              function percent(remaining) {
                if (remaining <= 0.0001) return "0%";
                if (remaining < 1) return "<1%";
                return Math.floor(remaining) + "%";
              }
              function duration(seconds) {
                const minutes = Math.trunc(seconds / 60);
                if (minutes < 1) return "<1m";
                if (minutes < 60) return minutes + "m";
                const hours = Math.trunc(minutes / 60);
                if (hours < 24) return minutes % 60 === 0 ? hours + "h" : hours + "h " + (minutes % 60) + "m";
                const days = Math.trunc(hours / 24);
                return hours % 24 === 0 ? days + "d" : days + "d " + (hours % 24) + "h";
              }
              function paceText(pace) {
                const points = Math.round(Math.abs(pace.deltaPercent));
                let lead = "on track";
                if (/ahead|Ahead/.test(pace.stage)) lead = points + "% ahead";
                if (/behind|Behind/.test(pace.stage)) lead = points + "% behind";
                if (!pace.lastsUntilReset && pace.etaSeconds !== null && pace.etaSeconds !== undefined) {
                  return lead + (pace.etaSeconds <= 0 ? ", used up" : ", runs out in " + duration(pace.etaSeconds));
                }
                return pace.stage === "onTrack" ? lead : lead + ", lasts until reset";
              }
              function rowText(figures, now) {
                if (figures.due) return "due: reset since its figures were read";
                let text = figures.level === "depleted" ? "used up" : percent(figures.remainingPercent) + " left";
                if (figures.resetsAt) {
                  const seconds = (Date.parse(figures.resetsAt) - now) / 1000;
                  text += " · resets " + (seconds <= 0 ? "due" : "in " + duration(seconds));
                }
                if (figures.pace && figures.level !== "depleted") text += " · " + paceText(figures.pace);
                return text;
              }
              function rows(account) {
                const found = [];
                if (account.session) found.push(["session", "Session", account.session]);
                if (account.weekly) found.push(["weekly", "Weekly", account.weekly]);
                for (const limit of account.limits || []) found.push([limit.id, limit.label, limit]);
                return found;
              }
              function key(account) { return account.providerID + ":" + (account.accountEmail || account.deviceID); }
              function meta(account) {
                return [account.plan, "from " + account.deviceName, account.stale ? "stale" : null, account.error]
                  .filter(function (part) { return part; }).join(" · ");
              }
              function element(tag, className, text) {
                const made = document.createElement(tag);
                if (className) made.className = className;
                if (text !== undefined) made.textContent = text;
                return made;
              }
              function card(account, now) {
                const made = element("article", "card");
                made.dataset.key = key(account);
                const title = element("h3", null, displayName(account.providerID) + " ");
                title.appendChild(element("span", "email", account.accountEmail || "(no e-mail, " + account.deviceName + ")"));
                made.appendChild(title);
                made.appendChild(element("p", "meta", meta(account)));
                const list = element("ul", "bars");
                for (const [id, label, figures] of rows(account)) {
                  const item = element("li", "level " + figures.level);
                  item.dataset.window = id;
                  item.appendChild(element("span", "name", label));
                  const bar = element("span", "bar");
                  const fill = element("i");
                  fill.style.width = Math.min(100, Math.max(0, figures.usedPercent)) + "%";
                  bar.appendChild(fill);
                  item.appendChild(bar);
                  item.appendChild(element("span", "text", rowText(figures, now)));
                  list.appendChild(item);
                }
                made.appendChild(list);
                return made;
              }
              function draw(status) {
                const now = Date.parse(status.now);
                const asOf = document.getElementById("as-of");
                asOf.textContent = "as of ";
                const time = element("time", null, status.now);
                time.dateTime = status.now;
                asOf.appendChild(time);
                const cards = document.querySelector("#live .cards");
                const fresh = status.accounts.map(function (account) { return card(account, now); });
                cards.replaceChildren.apply(cards, fresh);
                const alerts = [];
                const ranks = ["depleted", "critical", "warning"];
                for (const account of status.accounts) {
                  const who = displayName(account.providerID) + " " + (account.accountEmail || account.deviceName);
                  for (const [, label, figures] of rows(account)) {
                    const rank = ranks.indexOf(figures.level);
                    if (rank >= 0) alerts.push([rank, alerts.length, figures.level, who + ": " + label + " " + rowText(figures, now)]);
                  }
                }
                alerts.sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
                const section = document.getElementById("alerts");
                const list = section.querySelector("ul");
                list.replaceChildren.apply(list, alerts.map(function (alert) { return element("li", "level " + alert[2], alert[3]); }));
                section.hidden = alerts.length === 0;
                window.aggctlDashboard.updates += 1;
              }
              function say(text, stale) {
                state.textContent = text;
                state.className = stale ? "stale" : "";
              }
              async function poll() {
                timer = null;
                try {
                  const headers = token ? { "Authorization": "Bearer " + token } : {};
                  const answer = await fetch("/api/status", { headers: headers, cache: "no-cache" });
                  if (answer.status === 401) {
                    token = null;
                    sessionStorage.removeItem("aggctl-token");
                    form.hidden = false;
                    say("the token was refused", true);
                    return;
                  }
                  if (!answer.ok) throw new Error("the server answered " + answer.status);
                  draw(await answer.json());
                  say("live", false);
                } catch (error) {
                  window.aggctlDashboard.lastError = String(error);
                  say("not updated: " + String(error && error.message || error), true);
                }
                timer = setTimeout(poll, refresh);
              }
              form.addEventListener("submit", function (event) {
                event.preventDefault();
                const given = form.elements.token.value.trim();
                if (!given) return;
                token = given;
                sessionStorage.setItem("aggctl-token", token);
                form.elements.token.value = "";
                form.hidden = true;
                if (timer) clearTimeout(timer);
                poll();
              });
              if (tokenRequired && !token) {
                form.hidden = false;
              } else if (body.querySelector("#live .card") || !tokenRequired) {
                timer = setTimeout(poll, refresh);
              } else {
                poll();
              }
            })();

            """
    }()
}
