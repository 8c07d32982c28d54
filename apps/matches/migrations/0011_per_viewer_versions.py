"""Each viewer's own version (frames carry it): per log entry, and the match's current
ones and those at its current decision point, counted from the existing log with the same
privacy rule the server uses."""

from typing import Any

from django.db import migrations, models

from majiang.actions import logged_for_viewer


def count_views(apps: Any, schema_editor: Any) -> None:
    Match = apps.get_model("matches", "Match")
    MatchEvent = apps.get_model("matches", "MatchEvent")
    MatchPlayer = apps.get_model("matches", "MatchPlayer")
    for match in Match.objects.iterator():
        players = MatchPlayer.objects.filter(match=match).count()
        viewers = [*range(players), None]
        views = [0] * (players + 1)
        decision_views = list(views)
        entries = list(MatchEvent.objects.filter(match=match).order_by("seq"))
        for entry in entries:
            events = entry.payload["events"]
            views = [v + any(logged_for_viewer(e, viewer) is not None for e in events)
                     for v, viewer in zip(views, viewers)]
            entry.views = views
            if entry.seq == match.decision_version:
                decision_views = views
        MatchEvent.objects.bulk_update(entries, ["views"], batch_size=500)
        match.views, match.decision_views = views, decision_views
        match.save(update_fields=["views", "decision_views"])


class Migration(migrations.Migration):

    dependencies = [
        ('matches', '0010_redundant_fk_indexes'),
    ]

    operations = [
        migrations.AddField(
            model_name='match',
            name='decision_views',
            field=models.JSONField(default=list, help_text='当前决策点开始时各方的版本；更早的版本发来的操作已过期', verbose_name='决策点版本'),
        ),
        migrations.AddField(
            model_name='match',
            name='views',
            field=models.JSONField(default=list, help_text='每个座位和旁观者各自看到的日志条数（最后一项是旁观者），即各自收到的版本号', verbose_name='各方版本'),
        ),
        migrations.AddField(
            model_name='matchevent',
            name='views',
            field=models.JSONField(default=list, help_text='本条之后每个座位和旁观者各自的版本（见对局的各方版本）', verbose_name='各方版本'),
        ),
        migrations.AlterField(
            model_name='match',
            name='changed_at',
            field=models.DateTimeField(auto_now_add=True, help_text='最后一次公开变化的时间', verbose_name='最后变化'),
        ),
        migrations.RunPython(count_views, migrations.RunPython.noop),
        migrations.RemoveField(
            model_name='match',
            name='decision_version',
        ),
    ]
