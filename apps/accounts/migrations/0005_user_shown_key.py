import unicodedata

from django.db import migrations, models


def _fill(apps, schema_editor):  # type: ignore[no-untyped-def]
    User = apps.get_model("accounts", "User")
    for user in User.objects.all():
        shown = user.display_name or user.username
        folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", shown).casefold())
        user.shown_key = folded.strip()
        user.save(update_fields=["shown_key"])


class Migration(migrations.Migration):
    dependencies = [("accounts", "0004_user_is_computer")]

    operations = [
        migrations.AddField(
            model_name="user",
            name="shown_key",
            field=models.CharField(
                db_index=True, default="", max_length=150, verbose_name="显示名比较键"
            ),
        ),
        migrations.RunPython(_fill, migrations.RunPython.noop),
    ]
