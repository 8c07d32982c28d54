from django.db import migrations


def _refill(apps, schema_editor):  # type: ignore[no-untyped-def]
    # The key now also reads look-alike letters of other scripts as Latin ones.
    from apps.accounts.models import name_key

    User = apps.get_model("accounts", "User")
    for user in User.objects.all():
        user.shown_key = name_key(user.display_name or user.username)
        user.save(update_fields=["shown_key"])


class Migration(migrations.Migration):
    dependencies = [("accounts", "0005_user_shown_key")]

    operations = [migrations.RunPython(_refill, migrations.RunPython.noop)]
